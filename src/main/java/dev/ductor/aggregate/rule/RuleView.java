package dev.ductor.aggregate.rule;

import io.quarkus.runtime.annotations.RegisterForReflection;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.aggregate.core.RuleState;

import java.time.Instant;

/**
 * A rule as the API shows it: its normalised definition (defaults filled in, so what you see is what
 * matches), and {@code version}, the rule's event-stream version, also sent as the ETag. A client may PUT this
 * document back with its changes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"name", "on", "match", "start", "signal", "enabled", "version", "createdAt", "updatedAt", "updatedBy"})
@RegisterForReflection
public record RuleView(String name, String on, JsonNode match, JsonNode start, JsonNode signal, boolean enabled,
                       long version, Instant createdAt, Instant updatedAt, String updatedBy) {

    static RuleView of(RuleState state) {
        ObjectNode json = state.rule().toJson();
        return new RuleView(state.name(), json.get("on").asText(), json.get("match"), json.get("start"), json.get("signal"),
                json.get("enabled").asBoolean(), state.version(), state.createdAt(), state.updatedAt(), state.updatedBy());
    }
}
