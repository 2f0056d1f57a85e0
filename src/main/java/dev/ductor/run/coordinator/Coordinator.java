package dev.ductor.run.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.DuctorConfig;
import dev.ductor.config.JsonCodec;
import dev.ductor.metrics.DuctorMetrics;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.run.RunConflictException;
import dev.ductor.run.core.Input;
import dev.ductor.run.core.RequeuePolicy;
import dev.ductor.run.core.RunStatus;
import dev.ductor.run.core.TickResult;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Advances one run for the wakeups claimed for it: one tick for all of them (redundant wakeups cost one
 * tick, or a no-op), retried in-process on conflict ({@link TickRetries}, after a first loss beside the batch, so
 * the batch goes on), then requeued with backoff, and after too many requeues without progress force-failed as
 * livelocked.
 */
@ApplicationScoped
public class Coordinator {

    private static final Logger LOG = Logger.getLogger(Coordinator.class);
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    @Inject TickRetries retries;
    @Inject WakeupRequeuer requeuer;
    @Inject DuctorMetrics metrics;
    @Inject DuctorConfig config;
    @Inject JsonCodec json;

    /**
     * Ticks the run for its claimed items. The stage completes once the tick is over, its in-process retries included:
     * at once when the first attempt settled it, later when they go on beside the batch. Until then this
     * JVM must not tick the run again ({@link RunLanes}).
     */
    public CompletionStage<Void> process(UUID runId, List<QueueItem> items) {
        List<Input> carried = items.stream()
                .filter(item -> item.kind() == QueueKind.TIMER)
                .<Input>map(item -> new Input.TimerFired(0, item.nodeId()))
                .toList();
        Attempts attempts = new Attempts();
        try {
            retries.once(runId, carried, items, attempts);
            return DONE;
        } catch (RunConflictException lost) {
            if (config.coordinator().maxRetries() == 0) {
                exhausted(runId, carried, items, lost);
                return DONE;
            }
            // The retries go on beside the batch: their delays end with a second, which the batch's other runs,
            // whose wakeups are leased too, must not wait out.
            return retries.retryBesideBatch(runId, carried, items, attempts, lost).handle((result, error) -> {
                Throwable cause = error instanceof java.util.concurrent.CompletionException ? error.getCause() : error;
                try {
                    if (cause instanceof RunConflictException exhausted) {
                        exhausted(runId, carried, items, exhausted);
                    } else if (cause != null) {
                        // Left leased: the items come back when the lease ends, as for an error on the batch thread.
                        LOG.errorf(cause, "tick of run %s failed", runId);
                    }
                } catch (RuntimeException e) {
                    LOG.errorf(e, "requeueing run %s after its lost retries failed; its wakeups come back after their lease", runId);
                }
                return null;
            });
        }
    }

    /** Every in-process attempt lost: requeue with backoff, or force-fail a run that stopped progressing. */
    private void exhausted(UUID runId, List<Input> carried, List<QueueItem> items, RunConflictException exhausted) {
        QueueItem envelope = items.stream().max(Comparator.comparingInt(QueueItem::requeueCount)).orElseThrow();
        RequeuePolicy.Decision decision = RequeuePolicy.decide(envelope.requeueCount(), seenSeq(envelope),
                exhausted.actualSeq(), config.coordinator().maxNonProgressingRequeues());
        if (decision.forceFail()) {
            LOG.warnf("run %s lost %d requeued ticks in a row without progress; force-failing it as livelocked",
                    runId, envelope.requeueCount());
            // Decided on the winner's seq: if the run moves before the failure applies, it was not livelocked.
            // The timers ride along, so that a dropped verdict does not lose their firing with the acked items.
            forceFail(runId, "livelock", knownSeq(exhausted.actualSeq()), carried, items);
        } else {
            metrics.requeue();
            requeuer.requeue(items, decision.nextCount(), exhausted.actualSeq());
        }
    }

    private Long seenSeq(QueueItem envelope) {
        if (envelope.payload() == null) {
            return null;
        }
        JsonNode seen = json.tree(envelope.payload()).get("seenSeq");
        return seen == null || !seen.canConvertToLong() ? null : seen.asLong();
    }

    /** A run whose seq is unknown (its row is gone) matches no verdict. */
    private static long knownSeq(Long seq) {
        return seq == null ? -1 : seq;
    }

    /**
     * Ends a run as FAILED through an ordinary, version-checked tick, so several pods (or the watchdog and
     * the livelock guard) deciding it at once still fail it exactly once. {@code decidedAtSeq} is the seq the
     * verdict was reached on: a run that moved since is left running (the tick drops the verdict), however
     * many times the tick is retried. Returns true when this call failed it.
     */
    public boolean forceFail(UUID runId, String reason, long decidedAtSeq, List<Input> carried, List<QueueItem> acks) {
        List<Input> inputs = new ArrayList<>(carried);
        inputs.add(new Input.ForceFail(0, reason, decidedAtSeq));
        for (int round = 0; round < 3; round++) {
            try {
                TickResult result = retries.tick(runId, inputs, acks, new Attempts());
                boolean failedNow = result != null && result.madeProgress() && result.status() == RunStatus.FAILED;
                if (failedNow) {
                    metrics.forcedFailure(reason);
                } else if (result != null && !result.status().isTerminal()) {
                    LOG.infof("run %s moved since it was judged %s at seq %d; left running", runId, reason, decidedAtSeq);
                }
                return failedNow;
            } catch (RunConflictException stillContended) {
                LOG.debugf("force-failing run %s conflicted again; round %d", runId, round + 1);
            }
        }
        return false;
    }
}
