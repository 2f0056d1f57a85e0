package dev.ductor.config;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The database's clock as a pod reads it: its last reading, carried on by the monotonic clock, never the wall clock. */
@Tag("unit")
class DatabaseClockTest {

    private static final Instant DB = Instant.parse("2026-03-01T12:00:00Z");
    private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);

    private static Clock wallClockOff(Duration skew) {
        return Clock.fixed(DB.plus(skew), ZoneOffset.UTC);
    }

    @Test
    void beforeAnyReadingItIsThePodsWallClock() {
        DatabaseClock clock = new DatabaseClock(nanos::get, wallClockOff(Duration.ofSeconds(-40)));
        assertFalse(clock.fromDatabase());
        assertNull(clock.uncertainty());
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertEquals(DB.minusSeconds(38), clock.instant());
    }

    @Test
    void aReadingPinsTheDatabasesTimeAtTheMiddleOfItsRoundTrip() {
        DatabaseClock clock = new DatabaseClock(nanos::get, wallClockOff(Duration.ofSeconds(-40)));
        long sent = nanos.get();
        long received = nanos.addAndGet(Duration.ofMillis(4).toNanos());
        clock.read(DB, sent, received);

        assertTrue(clock.fromDatabase());
        assertEquals(Duration.ofMillis(2), clock.uncertainty());
        assertEquals(DB.plusMillis(2), clock.instant(), "2 ms after the database answered, mid-trip");
    }

    @Test
    void betweenReadingsTheMonotonicClockCarriesItWhateverTheWallClockSays() {
        for (Duration skew : new Duration[] {Duration.ofSeconds(-40), Duration.ZERO, Duration.ofSeconds(40), Duration.ofDays(-3)}) {
            DatabaseClock clock = new DatabaseClock(nanos::get, wallClockOff(skew));
            clock.read(DB, nanos.get(), nanos.get());
            nanos.addAndGet(Duration.ofSeconds(10).toNanos());
            assertEquals(DB.plusSeconds(10), clock.instant(), "a pod " + skew + " off reads the database's time");
            nanos.addAndGet(-Duration.ofSeconds(10).toNanos());
        }
    }

    @Test
    void aLaterReadingReplacesTheEarlierOne() {
        DatabaseClock clock = new DatabaseClock(nanos::get, Clock.systemUTC());
        clock.read(DB, nanos.get(), nanos.get());
        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        // The database's clock was stepped (or this JVM's monotonic clock drifted): the next reading wins.
        clock.read(DB.plusSeconds(11), nanos.get(), nanos.get());
        assertEquals(DB.plusSeconds(11), clock.instant());
        assertEquals(DB.plusSeconds(11).toEpochMilli(), clock.millis());
    }

    @Test
    void itIsInUtcAndKeepsItsInstantsInAnotherZone() {
        DatabaseClock clock = new DatabaseClock(nanos::get, Clock.systemUTC());
        clock.read(DB, nanos.get(), nanos.get());
        assertEquals(ZoneOffset.UTC, clock.getZone());
        Clock paris = clock.withZone(java.time.ZoneId.of("Europe/Paris"));
        assertEquals(java.time.ZoneId.of("Europe/Paris"), paris.getZone());
        assertEquals(DB, paris.instant());
    }
}
