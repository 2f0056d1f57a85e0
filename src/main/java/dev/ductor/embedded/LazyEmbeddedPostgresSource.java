package dev.ductor.embedded;

import dev.ductor.config.LazyConfigSource;

import java.nio.file.Path;
import java.util.Set;

/**
 * Answers the datasource keys with the embedded server's, starting it only when a key is first read (never while the
 * build augments the application: {@link LazyConfigSource}).
 */
final class LazyEmbeddedPostgresSource extends LazyConfigSource {

    static final String JDBC_URL = "quarkus.datasource.jdbc.url";
    private static final String USERNAME = "quarkus.datasource.username";
    private static final String PASSWORD = "quarkus.datasource.password";
    private static final Set<String> NAMES = Set.of(JDBC_URL, USERNAME, PASSWORD);

    private final Path dataDirectory;
    private final boolean ephemeral;
    private final int port;

    LazyEmbeddedPostgresSource(Path dataDirectory, boolean ephemeral, int port) {
        super("ductor-embedded-postgres", NAMES);
        this.dataDirectory = dataDirectory;
        this.ephemeral = ephemeral;
        this.port = port;
    }

    @Override
    protected String valueAtRuntime(String propertyName) {
        return switch (propertyName) {
            case JDBC_URL -> EmbeddedPostgresLauncher.jdbcUrl(dataDirectory, ephemeral, port);
            case USERNAME -> EmbeddedPostgresLauncher.USER;
            case PASSWORD -> "";
            default -> null;
        };
    }
}
