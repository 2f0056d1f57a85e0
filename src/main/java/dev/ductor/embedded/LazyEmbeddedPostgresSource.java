package dev.ductor.embedded;

import io.quarkus.runtime.ExecutionMode;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.nio.file.Path;
import java.util.Set;

/**
 * Answers the datasource keys with the embedded server's, starting it only when a key is first read.
 * Quarkus also reads every property while it augments the application at build time (execution mode
 * still UNSET then); answering nothing there keeps {@code mvn package} from starting a database.
 */
final class LazyEmbeddedPostgresSource implements ConfigSource {

    static final String JDBC_URL = "quarkus.datasource.jdbc.url";
    private static final String USERNAME = "quarkus.datasource.username";
    private static final String PASSWORD = "quarkus.datasource.password";
    private static final Set<String> NAMES = Set.of(JDBC_URL, USERNAME, PASSWORD);

    private final Path dataDirectory;
    private final boolean ephemeral;
    private final int port;

    LazyEmbeddedPostgresSource(Path dataDirectory, boolean ephemeral, int port) {
        this.dataDirectory = dataDirectory;
        this.ephemeral = ephemeral;
        this.port = port;
    }

    @Override
    public Set<String> getPropertyNames() {
        return NAMES;
    }

    @Override
    public String getValue(String propertyName) {
        if (ExecutionMode.current() == ExecutionMode.UNSET) {
            return null; // the build reading every property, not an application starting
        }
        return switch (propertyName) {
            case JDBC_URL -> EmbeddedPostgresLauncher.jdbcUrl(dataDirectory, ephemeral, port);
            case USERNAME -> EmbeddedPostgresLauncher.USER;
            case PASSWORD -> "";
            default -> null;
        };
    }

    @Override
    public String getName() {
        return "ductor-embedded-postgres";
    }

    /** Below application.properties (250), so anything a user configures still wins. */
    @Override
    public int getOrdinal() {
        return 240;
    }
}
