package dev.ductor.run;

import dev.ductor.config.DuctorConfig;
import dev.ductor.queue.QueueItem;
import dev.ductor.run.core.Input;
import dev.ductor.run.core.TickResult;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.faulttolerance.api.Guard;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.util.TypeLiteral;
import jakarta.inject.Inject;

import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where a coordinator tick that lost its first attempt makes the rest of the seed's schedule (10 ms, 20 ms, 40 ms,
 * 1 s: {@code ductor.coordinator.retry-delays} and {@code max-retries}), so the batch it came in goes on to its
 * other runs at once instead of waiting out those delays on its thread; a batch of 32 runs behind one that keeps
 * losing could otherwise outlast the wakeups' lease and be redelivered under the very contention that made it lose.
 * The run's wakeups stay leased to this pod meanwhile (the schedule is about a second, the lease 30 s).
 *
 * <p>SmallRye Fault Tolerance retries asynchronously here: attempts run on this lane's threads, and its timer, not
 * a sleeping thread, waits out the delays. Its schedule starts with an immediate attempt; the batch thread has made
 * that one, so the lane's first invocation only hands on its loss and the delays follow as for any retried tick.
 */
@ApplicationScoped
public class TickRetryLane {

    private static final TypeLiteral<CompletionStage<TickResult>> RESULT = new TypeLiteral<>() {
    };

    @Inject RetryingTick retryingTick;
    @Inject DuctorConfig config;
    private ExecutorService threads;
    private Guard guard;

    @PostConstruct
    void start() {
        AtomicInteger counter = new AtomicInteger();
        threads = Executors.newFixedThreadPool(Math.max(1, config.coordinator().threads()), r -> {
            Thread thread = new Thread(r, "ductor-tick-retry-" + counter.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        });
        List<java.time.Duration> delays = config.coordinator().retryDelays();
        guard = Guard.create()
                .withDescription("coordinator tick retries")
                .withRetry()
                    .maxRetries(config.coordinator().maxRetries())
                    .delay(0, ChronoUnit.MILLIS)
                    .jitter(0, ChronoUnit.MILLIS)
                    .retryOn(RunConflictException.class)
                    .withCustomBackoff().strategy(() -> new TickRetrySchedule(delays)).done()
                    .done()
                .withThreadOffload(true)
                .withThreadOffloadExecutor(threads)
                .build();
    }

    void stop(@Observes ShutdownEvent event) {
        if (threads != null) {
            threads.shutdownNow(); // retries in flight leave their wakeups leased: they come back after the lease
        }
    }

    /**
     * Retries the tick that lost {@code firstLoss} on the batch thread; the stage completes with its result, or with
     * the last {@link RunConflictException} when every attempt lost (then the run is requeued), or another error.
     */
    public CompletionStage<TickResult> retry(UUID runId, List<Input> carried, List<QueueItem> acks, Attempts attempts,
                                             RunConflictException firstLoss) {
        AtomicBoolean firstPending = new AtomicBoolean(true);
        try {
            return guard.get(() -> {
                if (firstPending.getAndSet(false)) {
                    return CompletableFuture.failedFuture(firstLoss);
                }
                try {
                    return CompletableFuture.completedFuture(retryingTick.once(runId, carried, acks, attempts));
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }, RESULT);
        } catch (RuntimeException stopping) {
            return CompletableFuture.failedFuture(stopping); // the lane is shut down: the wakeups come back after the lease
        }
    }
}
