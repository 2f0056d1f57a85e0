package dev.ductor.database;

import dev.ductor.config.DatabaseClockSync;
import dev.ductor.config.DuctorConfig;
import dev.ductor.config.StartupOrder;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.ConfigurationException;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.hibernate.SessionFactory;
import org.hibernate.tool.schema.spi.SchemaManagementException;

import java.time.Duration;

/**
 * The start-up work that needs the database, first of all and in this order: migrate the schema (when
 * {@code quarkus.flyway.migrate-at-start} asks for it, see {@link StartupMigrationConfigSourceFactory}), validate it
 * against the entities (Hibernate's own validation, moved here from Hibernate's boot), read the database's clock.
 * Each runs again while the database is unreachable ({@link StartupRetry}): a pod whose database restarts or crashes
 * in the middle of its start-up waits for it, saying so, and comes up when it is back, instead of exiting. Quarkus'
 * own migration and Hibernate's own validation ran in Quarkus' start-up steps, where nothing can retry them.
 *
 * <p>Anything else that fails here stops the start with one message: a migration that fails, a schema that is not
 * the one this Ductor maps (a missing table: the migrations did not run).
 */
@ApplicationScoped
public class DatabaseStartup {

    @Inject DuctorConfig config;
    @Inject Instance<Flyway> flyway;
    @Inject SessionFactory sessionFactory;
    @Inject DatabaseClockSync clockSync;

    void onStart(@Observes @Priority(StartupOrder.DATABASE) StartupEvent event) throws Exception {
        Duration limit = config.database().startupWait();
        if (config.database().migrateAtStart()) {
            try {
                StartupRetry.whileUnreachable("migrating the schema", limit, () -> flyway.get().migrate());
            } catch (FlywayException failed) {
                throw new ConfigurationException("Migrating the database schema failed: " + StartupRetry.reason(failed));
            }
        }
        try {
            StartupRetry.whileUnreachable("validating the schema", limit, () -> {
                sessionFactory.getSchemaManager().validateMappedObjects();
                return null;
            });
        } catch (SchemaManagementException mismatch) {
            throw new ConfigurationException(mismatch.getMessage() + ". The database schema is not the one this Ductor"
                    + " needs: run its migrations (quarkus.flyway.migrate-at-start=true, or the Job of"
                    + " kubernetes/job-migrate.yaml) before its pods start.");
        }
        StartupRetry.whileUnreachable("reading the database's clock", limit, () -> {
            clockSync.firstSync();
            return null;
        });
    }
}
