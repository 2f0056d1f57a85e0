package dev.ductor.sdk.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.sdk.DuctorClient;
import dev.ductor.sdk.Run;
import dev.ductor.sdk.TestServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker JVM frozen with SIGSTOP past its lease: the server reaps the lease and dispatches attempt 2. Thawed with
 * SIGCONT, the worker's next heartbeat is refused, so the handler of attempt 1 is cancelled and interrupted and its
 * result is never sent; the same worker then runs attempt 2, whose result is the run's.
 */
@Tag("it")
class PausedWorkerIT {

    @Test
    void aWorkerFrozenPastItsLeaseDropsTheAttemptWhenItThaws() throws Exception {
        TestServer server = TestServer.get();
        DuctorClient admin = server.client("admin");
        DuctorClient client = server.client("client");
        String handler = "frozen-" + UUID.randomUUID().toString().substring(0, 8);
        String workflow = "wf-" + handler;
        admin.putWorkflow(workflow, new ObjectMapper().readTree("{\"nodes\": [{\"id\": \"work\", \"type\": \"task\","
                + " \"handler\": \"ext:" + handler + "\", \"retry\": {\"maxAttempts\": 2}}]}"), null);
        Path dir = Files.createDirectories(Path.of("target", handler).toAbsolutePath());
        Process worker = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), PausedWorkerMain.class.getName(),
                server.baseUri(), server.tokenFile("worker").toString(), handler, dir.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("worker.log").toFile()).start();
        try {
            Run run = client.startRun(workflow, Map.of(), null);
            await(() -> Files.exists(dir.resolve("started")), "attempt 1 started");
            signal("STOP", worker.pid());
            await(() -> client.getRun(run.runId()).node("work").path("attempts").asInt() == 2,
                    "the server reaped the frozen worker's lease and dispatched attempt 2");
            signal("CONT", worker.pid());

            Run done = client.awaitRun(run.runId(), Duration.ofSeconds(60));
            assertEquals("SUCCEEDED", done.status());
            assertEquals("attempt 2", done.node("work").path("output").path("from").asText());
            await(() -> Files.exists(dir.resolve("attempt-1")), "attempt 1's handler returned");
            assertEquals("cancelled=true interrupted=true", Files.readString(dir.resolve("attempt-1")));
            await(() -> Files.readString(dir.resolve("stats")).equals("leaseLost=1 completed=1"),
                    "attempt 1 counted as lost and not completed, attempt 2 completed");
        } finally {
            signal("CONT", worker.pid());
            worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(Condition condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                if (condition.holds()) {
                    return;
                }
            } catch (java.io.IOException notYet) {
                // a file not written yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("not within 60 s: " + what);
    }

    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS));
    }
}
