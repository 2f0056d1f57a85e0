package dev.ductor.aggregate.rule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.run.core.RequestFingerprint;

/** A validated {@code POST /events} body: type, optional key and payload, and the sender's idempotency key. */
public record IncomingEvent(String type, String key, JsonNode payload, String idempotencyKey) {

    /** What a repeat under the same idempotency key must match: everything of the event but the key itself. */
    public String fingerprint() {
        ObjectNode fields = JsonNodeFactory.instance.objectNode();
        fields.put("type", type);
        fields.put("key", key);
        fields.set("payload", payload);
        return RequestFingerprint.of(fields);
    }
}
