package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A rule, normalised: when an event of type {@link #on} arrives whose payload satisfies every entry of
 * {@link #match}, either {@link #start} a run or {@link #signal} the runs correlated with the event's key.
 * Exactly one of {@code start} and {@code signal} is set. Templates ({@code start.input},
 * {@code signal.payload}) are kept as written; {@link RuleTemplate} fills them in per event.
 * Built by {@link RuleValidator}; read back from stored events by {@link #fromJson}.
 */
public record Rule(String on, Map<String, JsonNode> match, Start start, Signal signal, boolean enabled) {

    /** Start a run of {@code workflow} with {@code input} (a template; {@code "$"} by default) on {@code tier}. */
    public record Start(String workflow, JsonNode input, String tier) {
    }

    /** Send the signal {@code name} with {@code payload} (a template; {@code "$"} by default). */
    public record Signal(String name, JsonNode payload) {
    }

    public Rule {
        match = Collections.unmodifiableMap(new LinkedHashMap<>(match));
    }

    /** The stored form, also what GET shows: {@code {on, match, start | signal, enabled}}. */
    public ObjectNode toJson() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode json = f.objectNode();
        json.put("on", on);
        ObjectNode matchJson = json.putObject("match");
        match.forEach((path, expected) -> matchJson.set(path, expected.deepCopy()));
        if (start != null) {
            ObjectNode startJson = json.putObject("start");
            startJson.put("workflow", start.workflow());
            startJson.set("input", start.input().deepCopy());
            startJson.put("tier", start.tier());
        }
        if (signal != null) {
            ObjectNode signalJson = json.putObject("signal");
            signalJson.put("name", signal.name());
            signalJson.set("payload", signal.payload().deepCopy());
        }
        json.put("enabled", enabled);
        return json;
    }

    /** Reads the stored form back; stored rules were valid when accepted, so this does not re-validate. */
    public static Rule fromJson(JsonNode json) {
        Map<String, JsonNode> match = new LinkedHashMap<>();
        JsonNode matchJson = json.path("match");
        for (Iterator<Map.Entry<String, JsonNode>> it = matchJson.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            match.put(entry.getKey(), entry.getValue().deepCopy());
        }
        Start start = null;
        if (json.hasNonNull("start")) {
            JsonNode s = json.get("start");
            start = new Start(s.path("workflow").asText(), s.has("input") ? s.get("input").deepCopy() : RuleTemplate.wholePayload(),
                    s.path("tier").asText(RuleValidator.DEFAULT_TIER));
        }
        Signal signal = null;
        if (json.hasNonNull("signal")) {
            JsonNode s = json.get("signal");
            signal = new Signal(s.path("name").asText(), s.has("payload") ? s.get("payload").deepCopy() : RuleTemplate.wholePayload());
        }
        return new Rule(json.path("on").asText(), match, start, signal, json.path("enabled").asBoolean(true));
    }
}
