package dev.ductor.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A packaged Ductor that cannot start stops at once, says why in one message, exits non-zero and leaves no process
 * behind: the embedded PostgreSQL it may have started is stopped too. Real JVMs of the packaged jar in the prod
 * profile, configured by environment variables as a container is.
 */
@Tag("it")
class StartupFailureIT {

    private static final String SUITE = "StartupFailureIT";
    private static final Duration EXIT_WITHIN = Duration.ofSeconds(60);

    private static Pods pods;
    private static Path work;

    @BeforeAll
    static void setUp() throws Exception {
        Path dir = Pods.workDir(SUITE);
        Pods.deleteOldLogs(dir);
        pods = new Pods(SUITE, dir, null);
        work = Files.createTempDirectory("ductor-startup-it");
    }

    @AfterAll
    static void tearDown() {
        if (pods != null) {
            pods.close();
        }
        Pods.deleteTree(work);
    }

    @Test
    void withoutAVerificationKeyItRefusesBeforeAnythingStartsWithOneMessage() throws Exception {
        Path dataDir = work.resolve("nokey-pgdata");
        PodProcess pod = pods.launchWithEnv("nokey", Map.of("DUCTOR_EMBEDDED_DATA_DIR", dataDir.toString()), List.of(), work);
        afterwardsNoPostgresOf(dataDir, () -> {
            int exit = pod.awaitExit(EXIT_WITHIN);
            String output = Files.readString(pod.log(), StandardCharsets.UTF_8);
            List<String> lines = output.lines().filter(line -> !line.isBlank()).toList();
            System.out.println("[" + SUITE + "] exit " + exit + " after " + pod.age() + " s, " + lines.size() + " lines:\n" + output);

            assertEquals(1, exit, "the exit status the README promises:\n" + output);
            List<String> message = lines.stream().filter(line -> line.contains("No JWT verification key is configured")).toList();
            assertEquals(1, message.size(), "the message, once:\n" + output);
            assertTrue(message.get(0).contains("mp.jwt.verify.publickey.location") && message.get(0).contains("mp.jwt.verify.issuer"),
                    "one line that names both settings:\n" + output);
            assertTrue(lines.size() <= 12, "a handful of lines, not " + lines.size() + ":\n" + output);
            assertFalse(lines.stream().anyMatch(line -> line.matches("\\s*at [\\w$.]+\\(.*")), "no stack frames:\n" + output);
            assertFalse(output.contains("embedded PostgreSQL") || output.contains("Flyway") || output.contains("ductor-coordinator"),
                    "nothing started before the configuration was checked:\n" + output);
        });
    }

    @Test
    void aStartThatFailsAfterTheEmbeddedPostgresStartedStopsItAndExits() throws Exception {
        // Migrations off on a fresh data directory: the schema check fails after the embedded server is up.
        Path dataDir = work.resolve("noschema-pgdata");
        PodProcess pod = pods.launchWithEnv("noschema", Map.of(
                "DUCTOR_EMBEDDED_DATA_DIR", dataDir.toString(),
                "DUCTOR_DEV_TOKENS_ENABLED", "true",
                "DUCTOR_DEV_TOKENS_DIR", work.resolve("tokens").toString(),
                "QUARKUS_FLYWAY_MIGRATE_AT_START", "false"), List.of(), work);
        afterwardsNoPostgresOf(dataDir, () -> {
            int exit = pod.awaitExit(EXIT_WITHIN);
            String output = Files.readString(pod.log(), StandardCharsets.UTF_8);
            System.out.println("[" + SUITE + "] exit " + exit + " after " + pod.age() + " s");
            assertNotEquals(0, exit, output);
            assertTrue(output.contains("embedded PostgreSQL"), "the embedded server had started:\n" + pod.tail(40));
        });
    }

    interface Check {
        void run() throws Exception;
    }

    /** Runs {@code check}, then asserts no process is left on {@code dataDir}; a failure of either is reported. */
    private static void afterwardsNoPostgresOf(Path dataDir, Check check) throws Exception {
        Throwable first = null;
        try {
            check.run();
        } catch (Throwable failed) {
            first = failed;
        }
        try {
            assertNoPostgresOf(dataDir);
        } catch (AssertionError leftBehind) {
            if (first == null) {
                throw leftBehind;
            }
            first.addSuppressed(leftBehind);
        }
        if (first instanceof Exception e) {
            throw e;
        }
        if (first instanceof Error e) {
            throw e;
        }
    }

    /** No process runs on {@code dataDir} any more; any that does is killed (after the assertion is recorded). */
    private static void assertNoPostgresOf(Path dataDir) throws InterruptedException {
        String dir = dataDir.toString();
        // The postmaster's children stop within moments of it; give a stopping server that moment.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<ProcessHandle> survivors;
        do {
            survivors = ProcessHandle.allProcesses()
                    .filter(p -> p.info().commandLine().map(c -> c.contains(dir)).orElse(false))
                    .toList();
            if (survivors.isEmpty()) {
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        List<String> described = survivors.stream().map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList();
        survivors.forEach(ProcessHandle::destroyForcibly);
        assertEquals(List.of(), described, "processes left running on " + dir);
    }
}
