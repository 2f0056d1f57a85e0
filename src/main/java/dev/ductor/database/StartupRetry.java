package dev.ductor.database;

import io.quarkus.runtime.configuration.ConfigurationException;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/**
 * A start-up step that needs the database, done again while the database is unreachable: a pod that starts while
 * PostgreSQL restarts, fails over or crash-recovers (before the step or in the middle of it) waits for it with
 * backoff (0.5 s doubling to 5 s), one WARN line per try, and goes on when it is back. It gives up
 * {@code ductor.database.startup-wait} after the database was first found unreachable, with one message and no stack
 * trace: Quarkus prints a {@link ConfigurationException} without a cause as its message alone and exits 1.
 *
 * <p>Every step it runs must be safe to run again from the start: Flyway's migration (PostgreSQL rolls a migration
 * cut short back, DDL included, and Flyway's lock dies with its connection), the schema validation, reads.
 */
public final class StartupRetry {

    private static final Logger LOG = Logger.getLogger(StartupRetry.class);
    private static final Duration FIRST_PAUSE = Duration.ofMillis(500);
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(5);

    private StartupRetry() {
    }

    /** Runs {@code work}, again while it fails because the database is unreachable ({@link DatabaseOutage}). */
    public static <T> T whileUnreachable(String step, Duration limit, Callable<T> work) throws Exception {
        return whileUnreachable(step, limit, DatabaseOutage::isOutage, work);
    }

    /**
     * Runs {@code work}, again while its failure is {@code unreachable}; any other failure is thrown as it is. Gives
     * up {@code limit} after the first failure with a {@link ConfigurationException} naming the step and the settings.
     */
    public static <T> T whileUnreachable(String step, Duration limit, Predicate<Throwable> unreachable, Callable<T> work)
            throws Exception {
        long deadline = 0;
        Duration pause = FIRST_PAUSE;
        for (int attempt = 1; ; attempt++) {
            try {
                T result = work.call();
                if (attempt > 1) {
                    LOG.infof("The database is reachable again after %d tries; %s done", attempt, step);
                }
                return result;
            } catch (Exception failure) {
                if (!unreachable.test(failure)) {
                    throw failure;
                }
                long now = System.nanoTime();
                if (attempt == 1) {
                    deadline = now + limit.toNanos();
                }
                String reason = reason(failure);
                long left = deadline - now;
                if (left <= 0) {
                    throw new ConfigurationException("Gave up waiting for the database after " + limit.toSeconds()
                            + " s while " + step + " (" + attempt + " tries; last: " + reason + "). Check that PostgreSQL"
                            + " runs and that QUARKUS_DATASOURCE_JDBC_URL, _USERNAME and _PASSWORD point at it;"
                            + " ductor.database.startup-wait (DUCTOR_DATABASE_STARTUP_WAIT) sets how long a pod waits.");
                }
                Duration next = pause.toNanos() < left ? pause : Duration.ofNanos(left);
                LOG.warnf("Waiting for the database while %s (try %d: %s); next try in %d ms, giving up %d s after it"
                        + " became unreachable", step, attempt, reason, next.toMillis(), limit.toSeconds());
                Thread.sleep(next.toMillis());
                pause = pause.multipliedBy(2).compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : pause.multipliedBy(2);
            }
        }
    }

    /** The failure's message and, when it says more, its deepest cause's that has one: one line, no stack. */
    static String reason(Throwable failure) {
        String message = firstLine(failure);
        String deepest = null;
        for (Throwable cause = failure.getCause(); cause != null && cause != failure; cause = cause.getCause()) {
            if (cause.getMessage() != null) {
                deepest = firstLine(cause);
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return deepest == null || message.contains(deepest) ? message : message + " (" + deepest + ")";
    }

    private static String firstLine(Throwable failure) {
        return failure.getMessage() == null ? failure.getClass().getName()
                : failure.getMessage().lines().findFirst().orElse("").trim();
    }
}
