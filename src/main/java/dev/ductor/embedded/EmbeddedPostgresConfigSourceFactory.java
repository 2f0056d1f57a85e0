package dev.ductor.embedded;

import io.quarkus.runtime.ImageMode;
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
 *
 * <p>JVM only. zonky extracts the PostgreSQL binaries from a class-path archive and runs them as child
 * processes; a native executable carries neither the archive nor a way to make this work, so there a missing
 * JDBC URL with the embedded server still enabled stops the start-up with a message saying what to set,
 * instead of a failure deep inside zonky. With {@code ductor.embedded.enabled=false} (as in
 * {@code src/main/docker/Dockerfile.native}) or a configured URL this factory supplies nothing, in either mode.
 */
public class EmbeddedPostgresConfigSourceFactory implements ConfigSourceFactory {

    static final String NATIVE_IMAGE_MESSAGE = "The embedded PostgreSQL is JVM-only and cannot start in a native"
            + " executable (it unpacks PostgreSQL binaries from the class path and runs them). Set"
            + " QUARKUS_DATASOURCE_JDBC_URL, QUARKUS_DATASOURCE_USERNAME and QUARKUS_DATASOURCE_PASSWORD to an"
            + " external PostgreSQL, and DUCTOR_EMBEDDED_ENABLED=false (src/main/docker/Dockerfile.native sets it).";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        return sources(context, ImageMode.current());
    }

    /** The decision, with the image mode as a parameter so that the native branch is testable on the JVM. */
    static List<ConfigSource> sources(ConfigSourceContext context, ImageMode imageMode) {
        if (isSet(context, LazyEmbeddedPostgresSource.JDBC_URL) || !bool(context, "ductor.embedded.enabled", true)) {
            return List.of();
        }
        if (imageMode == ImageMode.NATIVE_RUN) {
            throw new IllegalStateException(NATIVE_IMAGE_MESSAGE);
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
