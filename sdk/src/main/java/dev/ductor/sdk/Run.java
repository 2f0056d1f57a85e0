package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.Set;

/** A run as {@code GET /api/v1/runs/{runId}} shows it; {@link #json()} has every field, the accessors the common ones. */
public final class Run {

    private static final Set<String> TERMINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED");

    private final JsonNode json;

    public Run(JsonNode json) {
        this.json = json;
    }

    public static boolean isTerminal(String status) {
        return TERMINAL.contains(status);
    }

    public JsonNode json() {
        return json;
    }

    public String runId() {
        return json.path("runId").asText();
    }

    public String workflow() {
        return json.path("workflow").asText();
    }

    public String status() {
        return json.path("status").asText();
    }

    public boolean isTerminal() {
        return isTerminal(status());
    }

    /** The run's version: what {@code If-Match} takes for a PATCH. */
    public long version() {
        return json.path("version").asLong();
    }

    /** {@code {id: {state, attempts, output?, error?}}}. */
    public JsonNode nodes() {
        return json.path("nodes");
    }

    public JsonNode node(String id) {
        return json.path("nodes").path(id);
    }

    /** The run's output (set once it SUCCEEDED), or null. */
    public JsonNode output() {
        JsonNode output = json.get("output");
        return output == null || output.isNull() ? null : output;
    }

    /** The output read as {@code type} through {@code mapper}. */
    public <T> T output(ObjectMapper mapper, Class<T> type) {
        JsonNode output = output();
        return output == null ? null : mapper.convertValue(output, type);
    }

    @Override
    public String toString() {
        return json.toString();
    }
}
