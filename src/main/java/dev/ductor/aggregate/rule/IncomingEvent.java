package dev.ductor.aggregate.rule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.ductor.aggregate.core.RuleValidator;
import dev.ductor.error.BadRequestException;
import dev.ductor.run.core.RequestFingerprint;

/** A validated {@code POST /events} body: type, optional key and payload, and the sender's idempotency key. */
public record IncomingEvent(String type, String key, JsonNode payload, String idempotencyKey) {

    /**
     * PostgreSQL stores neither the NUL character (in text or jsonb) nor a number that overflowed to infinity, and an
     * event is stored before its rules act: such an event is refused, naming the field, before anything is written.
     */
    public IncomingEvent {
        refuseUnstorable("type", TextNode.valueOf(type));
        refuseUnstorable("key", TextNode.valueOf(key));
        refuseUnstorable("payload", payload);
        refuseUnstorable("idempotencyKey", TextNode.valueOf(idempotencyKey));
    }

    private static void refuseUnstorable(String field, JsonNode value) {
        String unstorable = RuleValidator.unstorable(value);
        if (unstorable != null) {
            throw new BadRequestException(field, field + " " + unstorable);
        }
    }

    /** What a repeat under the same idempotency key must match: everything of the event but the key itself. */
    public String fingerprint() {
        ObjectNode fields = JsonNodeFactory.instance.objectNode();
        fields.put("type", type);
        fields.put("key", key);
        fields.set("payload", payload);
        return RequestFingerprint.of(fields);
    }
}
