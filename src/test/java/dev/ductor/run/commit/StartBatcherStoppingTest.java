package dev.ductor.run.commit;

import dev.ductor.config.DuctorConfig;
import dev.ductor.error.PodStoppingException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A start that reaches a stopping pod is answered at once, 503 pod-stopping, and never waits for a committer: not even
 * one that queues just after the committer's last drain, when no committer is left to commit it.
 */
@Tag("unit")
class StartBatcherStoppingTest {

    @Test
    void aStartAfterShutdownIsRefusedAtOnce() {
        StartBatcher batcher = new StartBatcher(); // nothing injected: a stopped batcher must not touch the database
        batcher.stop(null);

        CompletableFuture<RunStarter.Started> answer = batcher.submit("t", "w", new StartRequest(null, null, "standard"));

        ExecutionException failed = assertThrows(ExecutionException.class, () -> answer.get(5, TimeUnit.SECONDS));
        PodStoppingException stopping = assertInstanceOf(PodStoppingException.class, failed.getCause());
        assertEquals(503, stopping.status());
        assertEquals("1", stopping.headers().get("Retry-After"));
        assertThrows(PodStoppingException.class, () -> batcher.start("t", "w", new StartRequest(null, null, "standard")),
                "the waiting form throws the refusal itself, not a CompletionException");
    }

    /**
     * The interleaving: a start passes the stopping check and is being prepared; the pod stops, its committer drains
     * for the last time (nothing queued) and ends; then the start queues. Nobody will commit it, so it must be refused
     * rather than wait forever.
     */
    @Test
    void aStartQueuedJustAfterTheCommittersLastDrainIsAnswered() throws Exception {
        CountDownLatch preparing = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        StartBatcher batcher = new StartBatcher();
        batcher.config = noLinger();
        batcher.starter = new RunStarter(null, null, null, null, null, null, null, null, null, null, null, null) {
            @Override
            public Prepared prepareOnLastSeen(Request r) {
                if ("held".equals(r.workflow())) {
                    preparing.countDown();
                    await(resume);
                }
                return new Prepared(r, null, null, List.of(), List.of(), null, List.of());
            }

            @Override
            public Result[] startPrepared(List<Prepared> starts) {
                return starts.stream().map(p -> new Result(new Started(true, null), null)).toArray(Result[]::new);
            }
        };
        assertTrue(batcher.submit("t", "first", new StartRequest(null, null, "standard")).get(5, TimeUnit.SECONDS)
                .created(), "a committer runs");

        CompletableFuture<CompletableFuture<RunStarter.Started>> late = CompletableFuture.supplyAsync(
                () -> batcher.submit("t", "held", new StartRequest(null, null, "standard")));
        assertTrue(preparing.await(5, TimeUnit.SECONDS), "the late start passed the stopping check");
        batcher.stop(null); // the committer drains for the last time and ends
        resume.countDown();

        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> late.get(5, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS), "answered, not left waiting");
        assertInstanceOf(PodStoppingException.class, failed.getCause());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The settings a start reads: no start linger, and the start queue's bound. */
    private static DuctorConfig noLinger() {
        DuctorConfig.Starts starts = (DuctorConfig.Starts) Proxy.newProxyInstance(DuctorConfig.class.getClassLoader(),
                new Class<?>[] {DuctorConfig.Starts.class}, (proxy, method, args) -> {
                    if (method.getName().equals("linger")) {
                        return Duration.ZERO;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        DuctorConfig.Limits limits = (DuctorConfig.Limits) Proxy.newProxyInstance(DuctorConfig.class.getClassLoader(),
                new Class<?>[] {DuctorConfig.Limits.class}, (proxy, method, args) -> {
                    if (method.getName().equals("startQueue")) {
                        return 10_000;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return (DuctorConfig) Proxy.newProxyInstance(DuctorConfig.class.getClassLoader(),
                new Class<?>[] {DuctorConfig.class}, (proxy, method, args) -> {
                    if (method.getName().equals("starts")) {
                        return starts;
                    }
                    if (method.getName().equals("limits")) {
                        return limits;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
