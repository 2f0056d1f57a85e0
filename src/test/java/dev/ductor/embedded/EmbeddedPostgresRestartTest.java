package dev.ductor.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A JVM killed with -9 leaves its postmaster running; the next start must take the directory over, data intact. */
@Tag("db")
class EmbeddedPostgresRestartTest {

    @Test
    void aStartAfterKillMinusNineStopsTheOrphanAndKeepsTheData(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("pgdata");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), PostgresChild.class.getName(), data.toString())
                .redirectErrorStream(true)
                .start();
        String ready = awaitReady(child);
        child.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: no shutdown hook runs

        assertTrue(Files.exists(data.resolve("postmaster.pid")), "the orphan still holds the directory");
        long orphanPid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
        assertTrue(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive).orElse(false), "postmaster outlived its JVM: " + ready);

        try (EmbeddedPostgres restarted = EmbeddedPostgresLauncher.start(data, false, 0);
             Connection connection = DriverManager.getConnection(restarted.getJdbcUrl("postgres", "postgres"));
             ResultSet rs = connection.createStatement().executeQuery("SELECT note FROM survivor")) {
            assertTrue(rs.next());
            assertEquals("written before kill -9", rs.getString(1));
        }
        assertTrue(ProcessHandle.of(orphanPid).map(p -> !p.isAlive()).orElse(true), "the orphan was stopped");
    }

    private static String awaitReady(Process child) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        String line;
        while (System.nanoTime() < deadline && (line = out.readLine()) != null) {
            if (line.startsWith("READY")) {
                // Keep draining so the child never blocks on a full pipe before we kill it.
                Thread drain = new Thread(() -> out.lines().forEach(l -> { }));
                drain.setDaemon(true);
                drain.start();
                return line;
            }
            seen.add(line);
        }
        child.destroyForcibly();
        throw new AssertionError("child never became ready:\n" + String.join("\n", seen));
    }
}
