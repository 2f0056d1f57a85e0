package dev.ductor.run;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A validated start: the run's input, an optional idempotency key, its queue tier, and an optional
 * correlation key (the key by which event rules find the run to signal it).
 */
public record StartRequest(JsonNode input, String idempotencyKey, String tier, String correlationKey) {

    public StartRequest(JsonNode input, String idempotencyKey, String tier) {
        this(input, idempotencyKey, tier, null);
    }
}
