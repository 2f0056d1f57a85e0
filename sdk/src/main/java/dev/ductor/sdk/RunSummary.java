package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;

/**
 * A run as {@code GET /api/v1/runs} lists it: its header and each node's {@code state} and {@code attempts}, without
 * input, output or any node's output or error ({@link DuctorClient#getRun} has those). {@link #json()} has every field.
 */
public final class RunSummary {

    private final JsonNode json;

    public RunSummary(JsonNode json) {
        this.json = json;
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

    public int revision() {
        return json.path("revision").asInt();
    }

    public String status() {
        return json.path("status").asText();
    }

    public boolean isTerminal() {
        return Run.isTerminal(status());
    }

    public String tier() {
        return json.path("tier").asText(null);
    }

    /** The run's version when listed: what {@code If-Match} takes for a PATCH. */
    public long version() {
        return json.path("version").asLong();
    }

    public String createdAt() {
        return json.path("createdAt").asText(null);
    }

    public String updatedAt() {
        return json.path("updatedAt").asText(null);
    }

    /** The tags the run was started with, sorted by key; empty for a run started without. */
    public Map<String, String> tags() {
        return Tags.of(json.path("tags"));
    }

    /** {@code {id: {state, attempts}}}, in the definition's order. */
    public JsonNode nodes() {
        return json.path("nodes");
    }

    @Override
    public String toString() {
        return json.toString();
    }
}
