package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.rule.EventIngestion;
import dev.ductor.config.Tiers;
import dev.ductor.error.BadRequestException;
import dev.ductor.run.RunPatch;
import dev.ductor.run.core.OperatorActions;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Field-by-field checks of command bodies, so a client learns exactly which field is wrong. Payloads are
 * capped at {@link #MAX_PAYLOAD_CHARS} each (documented in docs/operations.md) so one request cannot bloat a
 * run row or the inbox; the HTTP layer caps whole bodies at 1 MiB.
 */
final class CommandBodies {

    static final int MAX_PAYLOAD_CHARS = 256 * 1024;
    static final int MAX_KEY_LENGTH = 200;

    private CommandBodies() {
    }

    static JsonNode object(JsonNode body, String shape) {
        if (body == null || !body.isObject()) {
            throw new BadRequestException(null, "the body must be a JSON object " + shape);
        }
        return body;
    }

    static void onlyFields(JsonNode body, Set<String> allowed) {
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new BadRequestException(name, "unknown field '" + name + "' (allowed: " + String.join(", ", allowed) + ")");
            }
        }
    }

    static String requiredText(JsonNode body, String field, int maxLength) {
        JsonNode value = body.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank() || value.asText().length() > maxLength) {
            throw new BadRequestException(field, field + " must be a non-blank string of at most " + maxLength + " characters");
        }
        return value.asText();
    }

    /**
     * A client's run or signal idempotency key: refused when it could be one a rule derives for an event
     * ({@link EventIngestion#DERIVED_KEY_PREFIX}), or a client could take a rule's run or signal for itself.
     */
    static String clientKey(String field, String key) {
        if (key.startsWith(EventIngestion.DERIVED_KEY_PREFIX)) {
            throw new BadRequestException(field, field + " must not start with '" + EventIngestion.DERIVED_KEY_PREFIX
                    + "': that prefix is reserved for the runs and signals rules start for events");
        }
        return key;
    }

    static JsonNode payload(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (value.toString().length() > MAX_PAYLOAD_CHARS) {
            throw new BadRequestException(field, field + " is larger than " + MAX_PAYLOAD_CHARS / 1024 + " KiB");
        }
        return value;
    }

    static RunPatch patch(JsonNode body, Tiers tiers) {
        object(body, "{tier?, nodes?: {id: {action: retry|skip}}}");
        onlyFields(body, new java.util.TreeSet<>(Set.of("tier", "nodes")));
        String tier = null;
        if (body.has("tier")) {
            JsonNode value = body.get("tier");
            if (!value.isTextual() || !tiers.contains(value.asText())) {
                throw new BadRequestException("tier", "tier must be one of " + tiers.describe());
            }
            tier = value.asText();
        }
        Map<String, OperatorActions.Action> actions = new LinkedHashMap<>();
        if (body.has("nodes")) {
            JsonNode nodes = body.get("nodes");
            if (!nodes.isObject()) {
                throw new BadRequestException("nodes", "nodes must be an object {nodeId: {action: retry|skip}}");
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = nodes.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> node = it.next();
                JsonNode action = node.getValue().get("action");
                if (!node.getValue().isObject() || node.getValue().size() != 1 || action == null || !action.isTextual()
                        || OperatorActions.Action.fromWire(action.asText()).isEmpty()) {
                    throw new BadRequestException("nodes." + node.getKey(), "each node takes {\"action\": \"retry\"} or {\"action\": \"skip\"}");
                }
                actions.put(node.getKey(), OperatorActions.Action.fromWire(action.asText()).get());
            }
        }
        if (tier == null && actions.isEmpty()) {
            throw new BadRequestException(null, "nothing to change: give a tier or node actions");
        }
        return new RunPatch(tier, actions);
    }
}
