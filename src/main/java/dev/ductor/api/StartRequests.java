package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.Tiers;
import dev.ductor.error.BadRequestException;
import dev.ductor.run.StartRequest;

import java.util.Iterator;
import java.util.Set;

/**
 * Checks a start body {@code {input?, idempotencyKey?, tier?, correlationKey?}} field by field, naming what is wrong.
 * {@code correlationKey} is what event rules with a {@code signal} action find the run by (see aggregate/rule/rules.md).
 */
final class StartRequests {

    private static final Set<String> FIELDS = Set.of("input", "idempotencyKey", "tier", "correlationKey");
    static final int MAX_KEY_LENGTH = 200;

    private StartRequests() {
    }

    static StartRequest parse(JsonNode body, Tiers tiers) {
        if (body == null || body.isNull() || body.isMissingNode()) {
            return new StartRequest(null, null, Tiers.DEFAULT);
        }
        if (!body.isObject()) {
            throw new BadRequestException(null, "the body must be a JSON object {input, idempotencyKey?, tier?, correlationKey?}");
        }
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new BadRequestException(name, "unknown field '" + name + "' (allowed: input, idempotencyKey, tier, correlationKey)");
            }
        }
        JsonNode key = body.get("idempotencyKey");
        String idempotencyKey = null;
        if (key != null && !key.isNull()) {
            if (!key.isTextual() || key.asText().isBlank() || key.asText().length() > MAX_KEY_LENGTH) {
                throw new BadRequestException("idempotencyKey", "idempotencyKey must be a non-blank string of at most "
                        + MAX_KEY_LENGTH + " characters");
            }
            idempotencyKey = CommandBodies.clientKey("idempotencyKey", key.asText());
        }
        JsonNode tierNode = body.get("tier");
        String tier = Tiers.DEFAULT;
        if (tierNode != null && !tierNode.isNull()) {
            if (!tierNode.isTextual() || !tiers.contains(tierNode.asText())) {
                throw new BadRequestException("tier", "tier must be one of " + tiers.describe());
            }
            tier = tierNode.asText();
        }
        JsonNode correlation = body.get("correlationKey");
        String correlationKey = null;
        if (correlation != null && !correlation.isNull()) {
            if (!correlation.isTextual() || correlation.asText().isBlank() || correlation.asText().length() > MAX_KEY_LENGTH) {
                throw new BadRequestException("correlationKey", "correlationKey must be a non-blank string of at most "
                        + MAX_KEY_LENGTH + " characters");
            }
            correlationKey = correlation.asText();
        }
        return new StartRequest(CommandBodies.payload(body, "input"), idempotencyKey, tier, correlationKey);
    }
}
