package dev.ductor.run;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** A run as the API shows it; {@code version} is the {@code db_record_version}, also sent as the ETag. */
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
        Instant updatedAt) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record NodeView(String state, int attempts, JsonNode output, String error) {
    }
}
