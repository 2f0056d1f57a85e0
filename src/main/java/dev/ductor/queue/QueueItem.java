package dev.ductor.queue;

import java.time.Instant;
import java.util.UUID;

/**
 * A claimed queue row. {@code leaseToken} fences the claim: acking, heartbeating or completing with any
 * other token does nothing. {@code leaseExpiresAt} is when the row becomes claimable again.
 */
public record QueueItem(
        long id,
        QueueKind kind,
        String tenant,
        String tier,
        UUID runId,
        String nodeId,
        int attempt,
        String handler,
        String pool,
        String payload,
        int requeueCount,
        UUID leaseToken,
        Instant leaseExpiresAt,
        int deliveries) {
}
