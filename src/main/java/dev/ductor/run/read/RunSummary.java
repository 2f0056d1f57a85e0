package dev.ductor.run.read;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * A run as the list shows it: its header and each node's state and attempts, never a payload (input, output, a node's
 * output or error), so that a page's size is bounded by its length and the workflow's node count, not by what callers
 * put in runs. The full run is {@code GET /runs/{id}}. Not verified against its checksum (that needs the payloads it
 * leaves out): a single GET, like a tick, refuses a row changed outside Ductor. {@code tags} is left out for a run
 * started without any, as in {@link RunView}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunSummary(
        UUID runId,
        String workflow,
        int revision,
        String status,
        String tier,
        String idempotencyKey,
        String correlationKey,
        Map<String, String> tags,
        Map<String, NodeSummary> nodes,
        long version,
        Instant createdAt,
        Instant updatedAt) {

    public record NodeSummary(String state, int attempts) {
    }
}
