package dev.ductor.run.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.run.core.RequestFingerprint;
import dev.ductor.run.core.RunTags;

import java.util.SortedMap;

/**
 * A validated start: the run's input, an optional idempotency key, its queue tier, an optional correlation key (the key
 * by which event rules find the run to signal it), and its tags (checked by {@link RunTags#check}; null for none).
 */
public record StartRequest(JsonNode input, String idempotencyKey, String tier, String correlationKey,
                           SortedMap<String, String> tags) {

    public StartRequest {
        tags = RunTags.normalized(tags);
    }

    public StartRequest(JsonNode input, String idempotencyKey, String tier, String correlationKey) {
        this(input, idempotencyKey, tier, correlationKey, null);
    }

    public StartRequest(JsonNode input, String idempotencyKey, String tier) {
        this(input, idempotencyKey, tier, null);
    }

    /**
     * What a repeat under the same idempotency key must match: everything of the start but the key itself. Tags count
     * only when there are some, so a start without tags keeps the fingerprint it had before runs had tags, and a key
     * stored then is still answered as a repeat.
     */
    public String fingerprint() {
        ObjectNode fields = JsonNodeFactory.instance.objectNode();
        fields.set("input", input);
        fields.put("tier", tier);
        fields.put("correlationKey", correlationKey);
        if (tags != null) {
            ObjectNode tagFields = fields.putObject("tags");
            tags.forEach(tagFields::put);
        }
        return RequestFingerprint.of(fields);
    }
}
