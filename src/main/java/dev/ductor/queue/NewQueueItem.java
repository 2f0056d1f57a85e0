package dev.ductor.queue;

import java.time.Instant;
import java.util.UUID;

/** A row to enqueue; {@code taskKey} (nullable) deduplicates the items that want it. */
public record NewQueueItem(
        QueueKind kind,
        String tenant,
        String tier,
        UUID runId,
        String nodeId,
        int attempt,
        String handler,
        String pool,
        String taskKey,
        String payload,
        int requeueCount,
        Instant availableAt) {

    public static NewQueueItem wakeup(String tenant, String tier, UUID runId, Instant at) {
        return new NewQueueItem(QueueKind.WAKEUP, tenant, tier, runId, null, 0, null, null, null, null, 0, at);
    }

    public static NewQueueItem task(String tenant, String tier, UUID runId, String node, int attempt, String handler,
                                    String pool, String input, Instant availableAt) {
        return new NewQueueItem(QueueKind.TASK, tenant, tier, runId, node, attempt, handler, pool,
                "task:" + runId + ":" + node + ":" + attempt, input, 0, availableAt);
    }

    public static NewQueueItem timer(String tenant, String tier, UUID runId, String node, Instant dueAt) {
        return new NewQueueItem(QueueKind.TIMER, tenant, tier, runId, node, 0, null, null,
                "timer:" + runId + ":" + node + ":" + dueAt.toEpochMilli(), null, 0, dueAt);
    }
}
