package dev.ductor.database;

import dev.ductor.config.DuctorConfig;
import io.quarkus.flyway.FlywayConfigurationCustomizer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.flywaydb.core.api.configuration.FluentConfiguration;

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
 * migrates, before anything else needs the database: the one hook that runs then. A database that goes away after
 * this wait, in the middle of start-up, is waited for by the steps that need it ({@link StartupRetry}).
 */
@ApplicationScoped
public class DatabaseStartupWait implements FlywayConfigurationCustomizer {

    @Inject DuctorConfig config;

    @Override
    public void customize(FluentConfiguration configuration) {
        awaitDatabase(configuration.getDataSource(), config.database().startupWait());
    }

    static void awaitDatabase(DataSource dataSource, Duration limit) {
        try {
            // Any SQLException: a host name not resolvable yet, a user not created yet are worth waiting out too.
            StartupRetry.whileUnreachable("connecting", limit, failure -> failure instanceof SQLException, () -> {
                try (Connection connection = dataSource.getConnection()) {
                    return null;
                }
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the database", e);
        } catch (Exception cannotHappen) {
            throw new IllegalStateException(cannotHappen);
        }
    }
}
