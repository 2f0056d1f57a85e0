package dev.ductor.database;

import io.quarkus.runtime.ExecutionMode;
import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.List;
import java.util.Map;

/**
 * Ductor migrates the schema in its own start-up step ({@link SchemaStartup}), where a database that goes away in the
 * middle of it is waited for; Quarkus' own migration at start-up runs where nothing can retry it, and a pod whose
 * database crashed during it exited. {@code quarkus.flyway.migrate-at-start} ({@code QUARKUS_FLYWAY_MIGRATE_AT_START})
 * keeps its meaning for whoever configures Ductor: this factory hands its value on as
 * {@code ductor.database.migrate-at-start} and turns Quarkus' own off.
 *
 * <p>Except with {@code quarkus.init-and-exit} (the migration Job of {@code kubernetes/job-migrate.yaml}): that
 * stops right after Quarkus' start-up steps, before any start-up observer runs, so Quarkus migrates there as
 * before; a Job whose migration failed is run again by Kubernetes.
 */
public class StartupMigrationConfigSourceFactory implements ConfigSourceFactory {

    static final String QUARKUS_KEY = "quarkus.flyway.migrate-at-start";
    static final String DUCTOR_KEY = "ductor.database.migrate-at-start";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        // UNSET: the build reading every property, not an application starting.
        if (ExecutionMode.current() == ExecutionMode.UNSET || Boolean.parseBoolean(value(context, "quarkus.init-and-exit"))) {
            return List.of();
        }
        boolean requested = Boolean.parseBoolean(value(context, QUARKUS_KEY));
        return List.of(new PropertiesConfigSource(Map.of(QUARKUS_KEY, "false", DUCTOR_KEY, Boolean.toString(requested)),
                "Ductor's start-up migrates (StartupMigrationConfigSourceFactory)", Integer.MAX_VALUE - 10));
    }

    private static String value(ConfigSourceContext context, String name) {
        ConfigValue value = context.getValue(name);
        return value == null ? null : value.getValue();
    }
}
