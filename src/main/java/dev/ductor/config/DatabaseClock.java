package dev.ductor.config;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/**
 * The database's clock, as this JVM reads it: the last reading of PostgreSQL's {@code clock_timestamp()}, carried
 * forward by this JVM's monotonic clock ({@code System.nanoTime()}). Every pod on one database thus agrees on what
 * time it is, whatever its own wall clock says: lease expiries written by one pod are judged by another on the same
 * timeline, and a timer or retry due at T is due at T for every claimer.
 *
 * <p>The pod's wall clock is never read after the first reading, so a skewed or stepped wall clock (a broken NTP, a
 * VM resumed from a snapshot) changes nothing. What remains is bounded: half the round trip of the reading (the
 * database read its clock somewhere in it; {@link #uncertainty()}), plus the drift of this JVM's monotonic clock
 * against the database's since that reading (crystal drift, ~0.01 %: a millisecond over the default 10 s between
 * readings). Before the first reading (the first moments of start-up, before any loop runs) it is the pod's wall
 * clock. {@link DatabaseClockSync} takes the readings.
 */
public final class DatabaseClock extends Clock {

    /** What the database's clock said, and this JVM's monotonic time at the middle of the round trip that asked. */
    private record Reading(Instant database, long monotonicNanos, Duration uncertainty, boolean fromDatabase) {
    }

    private final LongSupplier monotonic;
    private volatile Reading reading;

    /** @param monotonic this JVM's monotonic nanoseconds; {@code wallClock}: what to say before the first reading */
    DatabaseClock(LongSupplier monotonic, Clock wallClock) {
        this.monotonic = monotonic;
        this.reading = new Reading(wallClock.instant(), monotonic.getAsLong(), null, false);
    }

    /**
     * Takes a reading: {@code database} is what {@code clock_timestamp()} answered to a query sent at monotonic time
     * {@code sentNanos} whose answer arrived at {@code receivedNanos}.
     */
    void read(Instant database, long sentNanos, long receivedNanos) {
        long roundTrip = receivedNanos - sentNanos;
        reading = new Reading(database, sentNanos + roundTrip / 2, Duration.ofNanos(roundTrip / 2), true);
    }

    /** Whether a reading of the database's clock was taken; until then this is the pod's wall clock. */
    boolean fromDatabase() {
        return reading.fromDatabase();
    }

    /** How far the last reading may be off the database's clock (half its round trip); null before any. */
    Duration uncertainty() {
        return reading.uncertainty();
    }

    @Override
    public Instant instant() {
        Reading last = reading;
        return last.database().plusNanos(monotonic.getAsLong() - last.monotonicNanos());
    }

    @Override
    public long millis() {
        return instant().toEpochMilli();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** The same instants in another zone (Ductor's own times are instants, in UTC). */
    @Override
    public Clock withZone(ZoneId zone) {
        return zone.equals(ZoneOffset.UTC) ? this : new Zoned(this, zone);
    }

    /** This clock's instants, seen in another zone (for {@link #withZone}; Ductor itself never asks). */
    private static final class Zoned extends Clock {
        private final DatabaseClock clock;
        private final ZoneId zone;

        Zoned(DatabaseClock clock, ZoneId zone) {
            this.clock = clock;
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId other) {
            return new Zoned(clock, other);
        }

        @Override
        public Instant instant() {
            return clock.instant();
        }
    }
}
