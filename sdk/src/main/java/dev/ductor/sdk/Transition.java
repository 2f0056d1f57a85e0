package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/** One entry of a run's history: {@code node} is null for the run's own transitions. */
public record Transition(long seq, String at, String node, String from, String to, String cause) {

    static Transition of(JsonNode json) {
        return new Transition(json.path("seq").asLong(), json.path("at").asText(null),
                json.hasNonNull("node") ? json.get("node").asText() : null,
                json.path("from").asText(null), json.path("to").asText(null), json.path("cause").asText(null));
    }
}
