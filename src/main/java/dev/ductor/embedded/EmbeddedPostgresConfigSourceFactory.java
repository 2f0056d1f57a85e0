package dev.ductor.embedded;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.nio.file.Path;
import java.util.List;

/**
 * Supplies the datasource of an embedded PostgreSQL when no URL is configured, so that
 * {@code quarkus:dev}, {@code java -jar} and the tests start with no set-up at all.
 *
 * <p>A config source is the one hook that runs before Agroal, Flyway and Hibernate read their
 * configuration; a startup observer would be too late.
 */
public class EmbeddedPostgresConfigSourceFactory implements ConfigSourceFactory {

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (isSet(context, LazyEmbeddedPostgresSource.JDBC_URL) || !bool(context, "ductor.embedded.enabled", true)) {
            return List.of();
        }
        boolean ephemeral = bool(context, "ductor.embedded.ephemeral", false);
        Path dataDir = ephemeral
                ? Path.of(System.getProperty("java.io.tmpdir"), "ductor-pg-" + ProcessHandle.current().pid())
                : Path.of(string(context, "ductor.embedded.data-dir", ".ductor/pgdata"));
        int port = Integer.parseInt(string(context, "ductor.embedded.port", "0"));
        return List.of(new LazyEmbeddedPostgresSource(dataDir, ephemeral, port));
    }

    private static boolean isSet(ConfigSourceContext context, String name) {
        ConfigValue value = context.getValue(name);
        return value != null && value.getValue() != null && !value.getValue().isBlank();
    }

    private static boolean bool(ConfigSourceContext context, String name, boolean fallback) {
        return Boolean.parseBoolean(string(context, name, Boolean.toString(fallback)));
    }

    private static String string(ConfigSourceContext context, String name, String fallback) {
        ConfigValue value = context.getValue(name);
        return value == null || value.getValue() == null ? fallback : value.getValue();
    }
}
