package dev.ductor.run;

import dev.ductor.metrics.DuctorMetrics;
import dev.ductor.metrics.TickOutcome;
import dev.ductor.queue.QueueItem;
import dev.ductor.run.core.Input;
import dev.ductor.run.core.TickResult;
import io.smallrye.faulttolerance.api.CustomBackoff;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.faulttolerance.Retry;

import java.util.List;
import java.util.UUID;

/**
 * Retries a lost tick in-process. Its own bean, outside any transaction, so each attempt enters
 * {@link TickTransaction} anew: a fresh transaction, a fresh persistence context, the current state
 * re-read and the tick recomputed from scratch. The attempt count and delays are configuration:
 * {@code ductor.coordinator.max-retries} and {@code ductor.coordinator.retry-delays}.
 */
@ApplicationScoped
public class RetryingTick {

    @Inject TickTransaction transaction;
    @Inject DuctorMetrics metrics;

    /** {@code attempts} counts the attempts made, so retries are metered without state in this bean. */
    @Retry(maxRetries = 4, delay = 0, jitter = 0, retryOn = RunConflictException.class)
    @CustomBackoff(TickRetrySchedule.class)
    public TickResult tick(UUID runId, List<Input> carried, List<QueueItem> acks, Attempts attempts) {
        return once(runId, carried, acks, attempts);
    }

    /**
     * One metered attempt, not retried: the coordinator's batch thread makes the first this way and leaves the rest
     * of the schedule to the {@link TickRetryLane}. The attempt count carries on in {@code attempts}.
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
}
