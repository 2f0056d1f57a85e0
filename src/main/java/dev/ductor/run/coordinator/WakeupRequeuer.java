package dev.ductor.run.coordinator;

import dev.ductor.config.DuctorConfig;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.run.core.RequeuePolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts a run's wakeups back on the queue after the in-process retries ran out. Each requeued item gets a
 * distinct, deterministic key ({@code requeue:<run>:<lost item>:<n>}) so no deduplication can swallow it,
 * and carries its count and the run's seq on the item itself: the envelope, never the run row. Only an item
 * this pod still holds is replaced: one whose lease ran out meanwhile was redelivered to another pod, and a
 * copy of it would be a second live wakeup, each one requeued again on its next loss.
 */
@ApplicationScoped
public class WakeupRequeuer {

    @Inject QueueRepository queue;
    @Inject DuctorConfig config;
    @Inject Clock clock;

    public static String key(QueueItem lost, int count) {
        return "requeue:" + lost.runId() + ":" + lost.id() + ":" + count;
    }

    /** Replaces each lost item still leased to this pod by one requeued item, due after the backoff for {@code count}. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void requeue(List<QueueItem> lost, int count, Long seenSeq) {
        Instant now = clock.instant();
        Instant due = now.plus(RequeuePolicy.backoff(count, config.coordinator().requeueBase(), config.coordinator().requeueCap()));
        String envelope = seenSeq == null ? null : "{\"seenSeq\":" + seenSeq + "}";
        List<NewQueueItem> again = new ArrayList<>();
        for (QueueItem item : lost) {
            // A timer's firing rides on its item, so a requeued timer stays a timer; plain wakeups stay wakeups.
            QueueKind kind = item.kind() == QueueKind.TIMER ? QueueKind.TIMER : QueueKind.WAKEUP;
            if (queue.ack(item.id(), item.leaseToken())) {
                again.add(new NewQueueItem(kind, item.tenant(), item.tier(), item.runId(), item.nodeId(), 0, null, null,
                        key(item, count), envelope, count, due));
            }
        }
        queue.enqueue(again, now);
    }
}
