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
}
