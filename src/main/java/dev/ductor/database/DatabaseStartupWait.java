package dev.ductor.database;

import dev.ductor.config.DuctorConfig;
import io.quarkus.flyway.FlywayConfigurationCustomizer;
import io.quarkus.runtime.configuration.ConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * A pod that starts while PostgreSQL is unreachable (a database restart, a failover, a cluster starting in any
 * order) waits for it instead of exiting: with backoff, saying so at every try, up to
 * {@code ductor.database.startup-wait}; then it exits with one message.
 *
 * <p>A Flyway customizer because Quarkus builds the Flyway instance of the datasource at start-up whether or not it
 * migrates, before Flyway and Hibernate's schema validation first need the database: the one hook that runs then.
 */
@ApplicationScoped
public class DatabaseStartupWait implements FlywayConfigurationCustomizer {

    private static final Logger LOG = Logger.getLogger(DatabaseStartupWait.class);
    private static final Duration FIRST_PAUSE = Duration.ofMillis(500);
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(5);

    @Inject
    DuctorConfig config;

    @Override
    public void customize(FluentConfiguration configuration) {
        awaitDatabase(configuration.getDataSource(), config.database().startupWait());
    }

    static void awaitDatabase(DataSource dataSource, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        Duration pause = FIRST_PAUSE;
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = dataSource.getConnection()) {
                if (attempt > 1) {
                    LOG.infof("The database is reachable after %d tries; starting", attempt);
                }
                return;
            } catch (SQLException unreachable) {
                String reason = reason(unreachable);
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new ConfigurationException("Gave up waiting for the database after " + limit.toSeconds() + " s ("
                            + attempt + " tries; last: " + reason + "). Check that PostgreSQL runs and that"
                            + " QUARKUS_DATASOURCE_JDBC_URL, _USERNAME and _PASSWORD point at it; ductor.database.startup-wait"
                            + " (DUCTOR_DATABASE_STARTUP_WAIT) sets how long a pod waits.");
                }
                Duration next = pause.toNanos() < left ? pause : Duration.ofNanos(left);
                LOG.warnf("Waiting for the database (try %d: %s); next try in %d ms, giving up %d s from start-up",
                        attempt, reason, next.toMillis(), limit.toSeconds());
                sleep(next);
                pause = pause.multipliedBy(2).compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : pause.multipliedBy(2);
            }
        }
    }

    private static String reason(SQLException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root.getMessage() + ")";
    }

    private static void sleep(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the database", e);
        }
    }
}
