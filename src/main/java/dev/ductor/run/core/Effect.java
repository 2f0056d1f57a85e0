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
}
