package dev.ductor.sdk.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.sdk.DuctorClient;
import dev.ductor.sdk.Run;
import dev.ductor.sdk.TestServer;
import dev.ductor.sdk.Transition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three SDK worker JVMs run 500 runs of a two-step ({@code ext:}) chain in parallel, on the fast path: results
 * group-committed, each run's second step leased to the worker that finished its first with the answer (eager
 * dispatch). The JVM that took the blocking task is killed with SIGKILL mid-task, holding eagerly leased steps too:
 * its leases are reaped, attempt 2 completes on another worker, all 500 runs succeed, and every node attempt was
 * executed and applied once.
 */
@Tag("it")
class WorkerFleetIT {

    private static final int RUNS = 500;
    private static final int BLOCK_N = 7;
    private final List<Process> workers = new ArrayList<>();

    @AfterEach
    void stopWorkers() throws InterruptedException {
        for (Process worker : workers) {
            worker.destroy();
        }
        for (Process worker : workers) {
            if (!worker.waitFor(20, TimeUnit.SECONDS)) {
                worker.destroyForcibly();
            }
        }
    }

    @Test
    void fiveHundredRunsSurviveAWorkerKilledMidTask() throws Exception {
        TestServer server = TestServer.get();
        DuctorClient admin = server.client("admin");
        DuctorClient client = server.client("client");
        String handler = "double-" + UUID.randomUUID().toString().substring(0, 8);
        String workflow = "fleet-" + handler;
        admin.putWorkflow(workflow, new ObjectMapper().readTree("{\"nodes\": [{\"id\": \"work\", \"type\": \"task\","
                + " \"handler\": \"ext:" + handler + "\", \"retry\": {\"maxAttempts\": 3}}, {\"id\": \"then\", \"type\": \"task\","
                + " \"handler\": \"ext:" + handler + "\", \"retry\": {\"maxAttempts\": 3}, \"dependsOn\": [\"work\"]}]}"), null);

        Path dir = Files.createDirectories(Path.of("target", "fleet-" + handler).toAbsolutePath());
        Map<String, Process> byId = new HashMap<>();
        for (int i = 1; i <= 3; i++) {
            String id = "w" + i;
            Process worker = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                    "-Djava.util.logging.SimpleFormatter.format=%1$tT.%1$tL %4$s [%3$s] %5$s%6$s%n",
                    "-cp", System.getProperty("java.class.path"), FleetWorkerMain.class.getName(),
                    server.baseUri(), server.tokenFile("worker").toString(), id, handler, "16", dir.toString(), Integer.toString(BLOCK_N))
                    .redirectErrorStream(true).redirectOutput(dir.resolve(id + ".log").toFile()).start();
            workers.add(worker);
            byId.put(id, worker);
        }

        long started = System.nanoTime();
        List<String> runIds = startRuns(client, workflow);
        String killed = awaitBlocked(dir);
        Process victim = byId.get(killed);
        victim.destroyForcibly(); // SIGKILL: no shutdown hook, no last heartbeat
        assertTrue(victim.waitFor(15, TimeUnit.SECONDS));
        assertEquals(137, victim.exitValue());

        Map<String, Integer> attemptsByStep = new HashMap<>(); // "<run> <node>" -> attempts
        int retriedElsewhere = 0;
        for (int n = 0; n < RUNS; n++) {
            Run run = client.awaitRun(runIds.get(n), Duration.ofSeconds(120));
            assertEquals("SUCCEEDED", run.status(), run.toString());
            assertEquals(2 * n, run.node("work").path("output").path("doubled").asInt());
            assertEquals(2 * n, run.node("then").path("output").path("doubled").asInt());
            int attempts = run.node("work").path("attempts").asInt();
            attemptsByStep.put(run.runId() + " work", attempts);
            int thenAttempts = run.node("then").path("attempts").asInt();
            attemptsByStep.put(run.runId() + " then", thenAttempts);
            if (thenAttempts > 1) {
                retriedElsewhere++;
            }
            if (n == BLOCK_N) {
                assertTrue(attempts >= 2, "the killed worker's attempt was reaped and retried: " + run);
                assertNotEquals(killed, run.node("work").path("output").path("worker").asText());
            } else if (attempts > 1) {
                retriedElsewhere++; // a lease that ran out on a starved machine: retried, still applied once
            }
        }
        // Besides the blocked task, the killed JVM's other leases are retried too: a worker of concurrency 16 holds at
        // most 64 (16 running, 16 waiting for a slot, 32 results being reported); on a starved machine a few more
        // leases may run out. Tolerated, but not many.
        assertTrue(retriedElsewhere <= 4 * 16 - 1 + RUNS / 20, retriedElsewhere + " steps needed more than one attempt");
        System.out.printf("%d runs through 3 worker JVMs (one killed) in %.1f s; %d other runs took a second attempt%n", RUNS,
                (System.nanoTime() - started) / 1e9, retriedElsewhere);

        // No attempt was executed twice (the blocked one ran in the JVM that died) ...
        assertTrue(Files.readAllLines(dir.resolve(killed + ".calls")).contains(runIds.get(BLOCK_N) + " work 1"));
        Map<String, Integer> calls = new HashMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".calls")).toList()) {
                for (String line : Files.readAllLines(file)) {
                    calls.merge(line, 1, Integer::sum);
                }
            }
        }
        int attemptsCounted = attemptsByStep.values().stream().mapToInt(Integer::intValue).sum();
        assertTrue(calls.size() <= attemptsCounted && calls.size() >= 2 * RUNS, calls.size() + " calls for " + attemptsCounted + " attempts");
        calls.forEach((call, count) -> assertEquals(1, count, "attempt executed twice: " + call));
        attemptsByStep.forEach((step, attempts) ->
                assertNotNull(calls.get(step + " " + attempts), "the attempt that succeeded, " + attempts + " of " + step + ", was executed"));
        // ... and applied once: one success per step in its run's history.
        for (String runId : runIds) {
            List<Transition> history = client.history(runId);
            for (String node : List.of("work", "then")) {
                assertEquals(1, history.stream().filter(t -> node.equals(t.node()) && "SUCCEEDED".equals(t.to())).count(),
                        node + " of " + runId);
            }
        }
    }

    private static List<String> startRuns(DuctorClient client, String workflow) throws Exception {
        ExecutorService starters = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> futures = new ArrayList<>();
            for (int n = 0; n < RUNS; n++) {
                int value = n;
                futures.add(starters.submit(() -> client.startRun(workflow, Map.of("n", value), null).runId()));
            }
            List<String> ids = new ArrayList<>();
            for (Future<String> future : futures) {
                ids.add(future.get(60, TimeUnit.SECONDS));
            }
            return ids;
        } finally {
            starters.shutdown();
        }
    }

    private static String awaitBlocked(Path dir) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            try (Stream<Path> files = Files.list(dir)) {
                List<Path> blocked = files.filter(f -> f.getFileName().toString().startsWith("blocked-")).toList();
                if (!blocked.isEmpty()) {
                    return blocked.get(0).getFileName().toString().substring("blocked-".length());
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no worker took the blocking task within 90 s; see " + dir);
    }
}
