package dev.ductor.run.coordinator;

import dev.ductor.config.DuctorConfig;
import dev.ductor.metrics.DuctorMetrics;
import dev.ductor.metrics.TickOutcome;
import dev.ductor.queue.QueueItem;
import dev.ductor.run.RunConflictException;
import dev.ductor.run.core.Input;
import dev.ductor.run.core.TickResult;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.faulttolerance.api.Guard;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.util.TypeLiteral;
import jakarta.inject.Inject;

import java.time.Duration;
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
 * Retries a tick that lost a race ({@link RunConflictException}) in-process, on one SmallRye Fault Tolerance
 * {@link Guard}: {@code ductor.coordinator.max-retries} retries after the first attempt, waiting
 * {@code ductor.coordinator.retry-delays} between them ({@link TickRetrySchedule}). Called outside any transaction,
 * so each attempt enters {@link TickTransaction} anew: a fresh transaction, a fresh persistence context, the current
 * state re-read and the tick recomputed from scratch. Each attempt is metered, and counted in {@link Attempts}.
 *
 * <p>Two ways through the same guard. {@link #tick} retries on the caller's thread, which waits out the delays.
 * {@link #retryBesideBatch} takes over a coordinator tick that lost its first attempt on the batch thread, so the
 * batch goes on to its other runs at once instead of waiting out those delays: a batch of 32 runs behind one that
 * keeps losing could otherwise outlast the wakeups' lease and be redelivered under the very contention that made it
 * lose. Its attempts run on this bean's threads ({@code ductor-tick-retry-*}), and the guard's timer, not a sleeping
 * thread, waits out the delays. The run's wakeups stay leased to this pod meanwhile (the schedule is about a second,
 * the lease 30 s).
 */
@ApplicationScoped
public class TickRetries {

    private static final TypeLiteral<CompletionStage<TickResult>> LATER = new TypeLiteral<>() {
    };

    @Inject TickTransaction transaction;
    @Inject DuctorMetrics metrics;
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
        List<Duration> delays = config.coordinator().retryDelays();
        guard = Guard.create()
                .withDescription("coordinator tick retries")
                .withRetry()
                    .maxRetries(config.coordinator().maxRetries())
                    .delay(0, ChronoUnit.MILLIS)
                    .jitter(0, ChronoUnit.MILLIS)
                    .retryOn(RunConflictException.class)
                    .withCustomBackoff().strategy(() -> new TickRetrySchedule(delays)).done()
                    .done()
                .withThreadOffload(true) // applies to retryBesideBatch only: a synchronous call stays on its thread
                .withThreadOffloadExecutor(threads)
                .build();
    }

    void stop(@Observes ShutdownEvent event) {
        if (threads != null) {
            threads.shutdownNow(); // retries in flight leave their wakeups leased: they come back after the lease
        }
    }

    /**
     * The tick, retried on this thread until it does not lose or the retries run out; then the last
     * {@link RunConflictException} is thrown. {@code attempts} counts the attempts made.
     */
    public TickResult tick(UUID runId, List<Input> carried, List<QueueItem> acks, Attempts attempts) {
        return guard.get(() -> once(runId, carried, acks, attempts), TickResult.class);
    }

    /**
     * One metered attempt, not retried: the coordinator's batch thread makes the first this way and leaves the rest
     * of the schedule to {@link #retryBesideBatch}. The attempt count carries on in {@code attempts}.
     */
    public TickResult once(UUID runId, List<Input> carried, List<QueueItem> acks, Attempts attempts) {
        if (attempts.next() > 1) {
            metrics.retry();
        }
        long started = System.nanoTime();
        try {
            TickResult result = transaction.tickOnce(runId, carried, acks);
            metrics.tick(result == null || result.isNoop() ? TickOutcome.NOOP : TickOutcome.COMMITTED, System.nanoTime() - started);
            return result;
        } catch (RunConflictException conflict) {
            metrics.tick(TickOutcome.CONFLICT, System.nanoTime() - started);
            throw conflict;
        } catch (RuntimeException error) {
            metrics.tick(TickOutcome.ERROR, System.nanoTime() - started);
            throw error;
        }
    }

    /**
     * The rest of the schedule for the tick that lost {@code firstLoss} on the batch thread, on this bean's threads;
     * the stage completes with its result, or with the last {@link RunConflictException} when every attempt lost
     * (then the run is requeued), or another error. The schedule starts with an immediate attempt; the batch thread
     * has made that one, so the first invocation only hands on its loss and the delays follow as for {@link #tick}.
     */
    public CompletionStage<TickResult> retryBesideBatch(UUID runId, List<Input> carried, List<QueueItem> acks,
                                                       Attempts attempts, RunConflictException firstLoss) {
        AtomicBoolean firstPending = new AtomicBoolean(true);
        try {
            return guard.get(() -> {
                if (firstPending.getAndSet(false)) {
                    return CompletableFuture.failedFuture(firstLoss);
                }
                try {
                    return CompletableFuture.completedFuture(once(runId, carried, acks, attempts));
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }, LATER);
        } catch (RuntimeException stopping) {
            return CompletableFuture.failedFuture(stopping); // the threads are shut down: the wakeups come back after the lease
        }
    }
}
