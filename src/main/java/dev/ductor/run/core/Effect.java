package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;

/** What a committed tick causes; the shell writes these as queue rows in the tick's own transaction. */
public sealed interface Effect {

    record DispatchTask(String node, int attempt, String handler, String pool, JsonNode input, Instant availableAt)
            implements Effect {
    }

    record ScheduleTimer(String node, Instant dueAt) implements Effect {
    }

    /**
     * An operator retried or skipped the node: its attempts up to {@code throughAttempt} must never run, or run
     * again. A task row still waiting to be claimed (say, out its backoff) is deleted; a claimed one has its lease
     * revoked, so its worker's next heartbeat or report is refused (and its result never reaches the run).
     */
    record SupersedeTasks(String node, int throughAttempt) implements Effect {
    }

    /**
     * Start the child run of a {@code workflow} node's attempt, in the tick's own transaction. Its idempotency key comes
     * from the run, the node and the attempt, so a repeated commit cannot start it twice; its end comes back to the
     * node as the attempt's result.
     */
    record StartChild(String node, int attempt, String workflow, Integer revision, JsonNode input) implements Effect {
    }

    /** Cancel the child run of a {@code workflow} node's attempt: the parent ended or an operator skipped the node. */
    record CancelChild(String node, int attempt) implements Effect {
    }
}
