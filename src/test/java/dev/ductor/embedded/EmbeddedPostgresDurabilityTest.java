package dev.ductor.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The README promises that a persistent embedded server's data survives a crash: zonky starts PostgreSQL with
 * {@code -F} (fsync off) and synchronous_commit off, for tests; the persistent server must run with both on (our
 * {@code -c} settings come after {@code -F} on the command line and win). The ephemeral one may stay fast.
 */
@Tag("db")
class EmbeddedPostgresDurabilityTest {

    @Test
    void aPersistentServerKeepsFsyncAndSynchronousCommitOn() throws Exception {
        Path data = Files.createTempDirectory("ductor-durable-pg");
        try (EmbeddedPostgres postgres = EmbeddedPostgresLauncher.start(data, false, 0)) {
            assertEquals(Map.of("fsync", "on", "synchronous_commit", "on", "full_page_writes", "on"), settings(postgres));
        } finally {
            deleteTree(data);
        }
    }

    @Test
    void anEphemeralServerMayTradeDurabilityForSpeed() throws Exception {
        Path data = Files.createTempDirectory("ductor-ephemeral-pg");
        try (EmbeddedPostgres postgres = EmbeddedPostgresLauncher.start(data, true, 0)) {
            assertEquals(Map.of("fsync", "off", "synchronous_commit", "off", "full_page_writes", "off"), settings(postgres));
        } finally {
            deleteTree(data);
        }
    }

    private static Map<String, String> settings(EmbeddedPostgres postgres) throws Exception {
        Map<String, String> settings = new TreeMap<>();
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement statement = c.createStatement()) {
            for (String name : new String[] {"fsync", "synchronous_commit", "full_page_writes"}) {
                try (ResultSet row = statement.executeQuery("SHOW " + name)) {
                    row.next();
                    settings.put(name, row.getString(1));
                }
            }
        }
        return settings;
    }

    private static void deleteTree(Path dir) throws Exception {
        if (Files.exists(dir)) {
            try (var walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
