package dev.ductor.sdk.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.sdk.DuctorClient;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;

/**
 * One worker JVM of {@link WorkerFleetIT}: runs {@code ext:<handler>}, doubling {@code n}. It notes every handler call
 * ({@code runId attempt}) in {@code <dir>/<workerId>.calls}; the first attempt of the task whose {@code n} is
 * {@code blockN} blocks forever after writing {@code <dir>/blocked-<workerId>}, so the test can kill this JVM mid-task.
 * Args: baseUri tokenFile workerId handler concurrency dir blockN.
 */
public final class FleetWorkerMain {

    public static void main(String[] args) throws Exception {
        String baseUri = args[0];
        Path tokenFile = Path.of(args[1]);
        String workerId = args[2];
        String handler = args[3];
        int concurrency = Integer.parseInt(args[4]);
        Path dir = Path.of(args[5]);
        int blockN = Integer.parseInt(args[6]);
        BufferedWriter calls = Files.newBufferedWriter(dir.resolve(workerId + ".calls"), StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        DuctorClient client = DuctorClient.builder().baseUri(baseUri).tokenFile(tokenFile).build();
        DuctorWorker worker = DuctorWorker.builder(client)
                .workerId(workerId)
                .concurrency(concurrency)
                .pollWait(Duration.ofSeconds(2))
                .backoff(Duration.ofMillis(100), Duration.ofSeconds(2))
                .handler(handler, JsonNode.class, (JsonNode input, TaskContext ctx) -> {
                    synchronized (calls) {
                        calls.write(ctx.runId() + " " + ctx.node() + " " + ctx.attempt() + "\n");
                        calls.flush();
                    }
                    int n = input.path("n").asInt();
                    if (n == blockN && ctx.attempt() == 1 && "work".equals(ctx.node())) {
                        Files.writeString(dir.resolve("blocked-" + workerId), Long.toString(ProcessHandle.current().pid()));
                        Thread.sleep(Long.MAX_VALUE);
                    }
                    Thread.sleep(20); // a little work, so tasks overlap across the fleet
                    return Map.of("doubled", 2 * n, "worker", workerId, "attempt", ctx.attempt());
                })
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> worker.shutdown(Duration.ofSeconds(10))));
        worker.start();
        System.out.println("worker " + workerId + " started");
        Thread.currentThread().join();
    }

    private FleetWorkerMain() {
    }

}
