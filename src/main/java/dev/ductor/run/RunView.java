package dev.ductor.run;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * A run as the API shows it; {@code version} is the {@code db_record_version}, also sent as the ETag.
 * {@code integrity} is absent for a run whose row matches its checksum, {@code "corrupt"} when it does not (listed,
 * so a page still serves; a single GET of it is refused instead).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunView(
        UUID runId,
        String workflow,
        int revision,
        String status,
        String tier,
        String idempotencyKey,
        String correlationKey,
        Map<String, NodeView> nodes,
        JsonNode input,
        JsonNode output,
        long version,
        Instant createdAt,
        Instant updatedAt,
        String integrity) {

    /** A run that passed verification (or was just written), without an integrity mark. */
    public RunView(UUID runId, String workflow, int revision, String status, String tier, String idempotencyKey,
                   String correlationKey, Map<String, NodeView> nodes, JsonNode input, JsonNode output, long version,
                   Instant createdAt, Instant updatedAt) {
        this(runId, workflow, revision, status, tier, idempotencyKey, correlationKey, nodes, input, output, version,
                createdAt, updatedAt, null);
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record NodeView(String state, int attempts, JsonNode output, String error) {
    }
}
