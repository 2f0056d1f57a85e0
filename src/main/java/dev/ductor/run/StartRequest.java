package dev.ductor.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.run.core.RequestFingerprint;

/**
 * A validated start: the run's input, an optional idempotency key, its queue tier, and an optional
 * correlation key (the key by which event rules find the run to signal it).
 */
public record StartRequest(JsonNode input, String idempotencyKey, String tier, String correlationKey) {

    public StartRequest(JsonNode input, String idempotencyKey, String tier) {
        this(input, idempotencyKey, tier, null);
    }

    /** What a repeat under the same idempotency key must match: everything of the start but the key itself. */
    public String fingerprint() {
        ObjectNode fields = JsonNodeFactory.instance.objectNode();
        fields.set("input", input);
        fields.put("tier", tier);
        fields.put("correlationKey", correlationKey);
        return RequestFingerprint.of(fields);
    }
}
