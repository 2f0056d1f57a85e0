package dev.ductor.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import java.time.Clock;

/**
 * Time is an input: everything that needs "now" injects this, so tests can substitute a settable clock. It is the
 * database's clock ({@link DatabaseClock}), so every pod on one database agrees on lease expiries and due times
 * whatever its own wall clock says.
 */
@ApplicationScoped
public class ClockProducer {

    @Produces
    @ApplicationScoped
    Clock clock(DatabaseClockSync sync) {
        return sync.clock();
    }
}
