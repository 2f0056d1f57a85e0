package dev.ductor.config;

import io.agroal.api.AgroalDataSource;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * Keeps the {@link DatabaseClock} read from PostgreSQL: once at start-up, before any loop runs (a pod that cannot
 * read the database's clock does not start; {@link #firstSync}), then every {@code ductor.clock.sync-interval}. Each sync asks
 * {@code SELECT clock_timestamp()} a few times on one connection and keeps the answer with the shortest round trip,
 * the one that pins the database's time closest. A sync that fails (the database is down) keeps the last reading,
 * which the monotonic clock carries on; nothing that needs the clock is committed meanwhile anyway.
 *
 * <p>Says so, once, when this pod's wall clock is a second or more off the database's: that is worth fixing
 * (logs and external workers read wall clocks), though Ductor's own leases and due times no longer depend on it.
 */
@ApplicationScoped
public class DatabaseClockSync {

    private static final Logger LOG = Logger.getLogger(DatabaseClockSync.class);
    private static final int SAMPLES = 3;
    /** A reading this unsure (a database too busy to answer in a second) is not worth more than the last one. */
    private static final Duration WORST_USABLE = Duration.ofMillis(500);
    private static final Duration NOTABLE_SKEW = Duration.ofSeconds(1);

    private final DatabaseClock clock = new DatabaseClock(System::nanoTime, Clock.systemUTC());
    private final Clock wallClock = Clock.systemUTC();
    private volatile Duration reportedSkew;

    @Inject AgroalDataSource dataSource;
    @Inject DuctorConfig config;

    /** The clock every bean gets as {@link Clock} (see {@link ClockProducer}). */
    DatabaseClock clock() {
        return clock;
    }

    /**
     * The first reading, at start-up before any loop runs (the loops, the samples and the dev tokens all run on the
     * database's time): by {@code dev.ductor.database.DatabaseStartup}, which waits through a database that went away.
     */
    public void firstSync() throws SQLException {
        sync();
        LOG.infof("Clock: on the database's time, read to within %.1f ms; this pod's wall clock is %s",
                clock.uncertainty().toNanos() / 1e6, describe(reportedSkew));
    }

    @Scheduled(every = "${ductor.clock.sync-interval:10s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void refresh() {
        try {
            sync();
        } catch (SQLException | RuntimeException unreachable) {
            LOG.debugf("could not read the database's clock (%s); carrying the last reading on", unreachable.getMessage());
        }
    }

    /** Reads the database's clock now: the best of a few round trips on one connection. */
    void sync() throws SQLException {
        Sample best = null;
        try (Connection connection = dataSource.getConnection();
             PreparedStatement query = connection.prepareStatement("SELECT clock_timestamp()")) {
            for (int i = 0; i < SAMPLES; i++) {
                long sent = System.nanoTime();
                Instant database;
                try (ResultSet rs = query.executeQuery()) {
                    rs.next();
                    database = rs.getObject(1, OffsetDateTime.class).toInstant();
                }
                long received = System.nanoTime();
                Instant wall = wallClock.instant().minusNanos((received - sent) / 2);
                Sample sample = new Sample(database, sent, received, Duration.between(wall, database));
                if (best == null || sample.roundTrip() < best.roundTrip()) {
                    best = sample;
                }
            }
        }
        if (clock.fromDatabase() && Duration.ofNanos(best.roundTrip() / 2).compareTo(WORST_USABLE) > 0) {
            LOG.debugf("the database's clock answered in %d ms at best; keeping the last reading", best.roundTrip() / 1_000_000);
            return;
        }
        clock.read(best.database(), best.sent(), best.received());
        reportSkew(best.skew());
    }

    private record Sample(Instant database, long sent, long received, Duration skew) {
        long roundTrip() {
            return received - sent;
        }
    }

    /** Warns when the pod's wall clock is notably off the database's, at the first reading and when that changes. */
    private void reportSkew(Duration skew) {
        Duration last = reportedSkew;
        reportedSkew = skew;
        boolean notable = skew.abs().compareTo(NOTABLE_SKEW) >= 0;
        boolean news = last == null || skew.minus(last).abs().compareTo(NOTABLE_SKEW) >= 0;
        if (notable && news) {
            LOG.warnf("This pod's wall clock is %s. Ductor times leases, timers and retries by the database's clock, so"
                    + " nothing it decides depends on it; fix the host's time sync all the same", describe(skew));
        }
    }

    /** {@code skew} is the database's time less the pod's. */
    private static String describe(Duration skew) {
        if (skew == null) {
            return "unknown";
        }
        double seconds = skew.abs().toNanos() / 1e9;
        return String.format("%.3f s %s the database's", seconds, skew.isNegative() ? "ahead of" : "behind");
    }
}
