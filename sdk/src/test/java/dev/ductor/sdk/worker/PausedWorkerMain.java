package dev.ductor.sdk.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.sdk.DuctorClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The worker JVM of {@link PausedWorkerIT}: the first attempt of {@code ext:<handler>} writes {@code <dir>/started} and
 * works for a minute unless cancelled, then writes what it saw to {@code <dir>/attempt-1}; later attempts return at
 * once. The worker's stats are written to {@code <dir>/stats} every 100 ms. Args: baseUri tokenFile handler dir.
 */
public final class PausedWorkerMain {

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[3]);
        DuctorClient client = DuctorClient.builder().baseUri(args[0]).tokenFile(Path.of(args[1])).build();
        DuctorWorker worker = DuctorWorker.builder(client).concurrency(2).pollWait(Duration.ofSeconds(2))
                .handler(args[2], JsonNode.class, (JsonNode input, TaskContext ctx) -> {
                    if (ctx.attempt() > 1) {
                        return Map.of("from", "attempt " + ctx.attempt());
                    }
                    Files.writeString(dir.resolve("started"), ctx.taskId());
                    boolean interrupted = false;
                    long until = System.nanoTime() + Duration.ofMinutes(1).toNanos();
                    while (System.nanoTime() < until && !ctx.isCancelled()) {
                        try {
                            Thread.sleep(100);
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                    if (ctx.isCancelled() && !interrupted) {
                        // The worker marks the attempt cancelled first and interrupts its thread after: a sleep that
                        // ended in between (likely on SIGCONT, when every timer of the frozen JVM is due at once) sees
                        // the cancellation before the interrupt. Wait for the interrupt, which is what is checked.
                        try {
                            Thread.sleep(Duration.ofSeconds(5).toMillis());
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                    Files.writeString(dir.resolve("attempt-1"), "cancelled=" + ctx.isCancelled() + " interrupted=" + interrupted);
                    return Map.of("from", "attempt 1, whose lease was lost"); // must never reach the run
                })
                .build().start();
        while (true) {
            WorkerStats stats = worker.stats();
            Files.writeString(dir.resolve("stats.tmp"), "leaseLost=" + stats.leaseLost() + " completed=" + stats.completed());
            Files.move(dir.resolve("stats.tmp"), dir.resolve("stats"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            Thread.sleep(100);
        }
    }

    private PausedWorkerMain() {
    }
}
