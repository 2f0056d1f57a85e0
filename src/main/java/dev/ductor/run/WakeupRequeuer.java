package dev.ductor.run;

import dev.ductor.config.DuctorConfig;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts a run's wakeups back on the queue after the in-process retries ran out. Each requeued item gets a
 * distinct, deterministic key ({@code requeue:<run>:<item>:<n>}) so no deduplication can swallow it, and
 * carries its requeue count on the item itself: the count travels with the wakeup, never on the run row.
 */
@ApplicationScoped
public class WakeupRequeuer {

    private final QueueRepository queue;
    private final DuctorConfig config;
    private final Clock clock;

    @Inject
    public WakeupRequeuer(QueueRepository queue, DuctorConfig config, Clock clock) {
        this.queue = queue;
        this.config = config;
        this.clock = clock;
    }

    /** {@code 100ms * 2^n}, capped at 10 s by default. */
    public Duration backoff(int requeueCount) {
        Duration base = config.coordinator().requeueBase();
        Duration cap = config.coordinator().requeueCap();
        Duration delay = base.multipliedBy(1L << Math.min(requeueCount, 30));
        return delay.compareTo(cap) > 0 || delay.isNegative() ? cap : delay;
    }

    public static String key(QueueItem item, int nextCount) {
        return "requeue:" + item.runId() + ":" + item.id() + ":" + nextCount;
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void requeue(List<QueueItem> items, int currentCount) {
        Instant now = clock.instant();
        int next = currentCount + 1;
        Instant due = now.plus(backoff(currentCount));
        List<NewQueueItem> again = new ArrayList<>();
        for (QueueItem item : items) {
            // A timer's firing rides on its item, so a requeued timer stays a timer; plain wakeups stay wakeups.
            QueueKind kind = item.kind() == QueueKind.TIMER ? QueueKind.TIMER : QueueKind.WAKEUP;
            again.add(new NewQueueItem(kind, item.tenant(), item.tier(), item.runId(), item.nodeId(), 0, null, null,
                    key(item, next), null, next, due));
            queue.ack(item.id(), item.leaseToken());
        }
        queue.enqueue(again, now);
    }
}
