package dev.ductor.run;

import com.fasterxml.jackson.databind.JsonNode;

/** A validated start: the run's input, an optional idempotency key, and its queue tier. */
public record StartRequest(JsonNode input, String idempotencyKey, String tier) {
}
