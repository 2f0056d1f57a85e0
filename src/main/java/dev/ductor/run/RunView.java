package dev.ductor.run;

import io.quarkus.runtime.annotations.RegisterForReflection;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * A run as the API shows it; {@code version} is the {@code db_record_version}, also sent as the ETag.
 * {@code deadLetters} is present only on a single run's GET, and only while the run is parked as poison.
 * {@code integrity} is absent for a run whose row matches its checksum, {@code "corrupt"} when it does not (listed,
 * so a page still serves; a single GET of it is refused instead).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@RegisterForReflection
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
        String integrity,
        DeadLetters deadLetters) {

    /** A run that passed verification (or was just written), without an integrity mark. */
    public RunView(UUID runId, String workflow, int revision, String status, String tier, String idempotencyKey,
                   String correlationKey, Map<String, NodeView> nodes, JsonNode input, JsonNode output, long version,
                   Instant createdAt, Instant updatedAt) {
        this(runId, workflow, revision, status, tier, idempotencyKey, correlationKey, nodes, input, output, version,
                createdAt, updatedAt, null);
    }

    /** A run as listed: {@code integrity} marks one whose row fails its checksum. */
    public RunView(UUID runId, String workflow, int revision, String status, String tier, String idempotencyKey,
                   String correlationKey, Map<String, NodeView> nodes, JsonNode input, JsonNode output, long version,
                   Instant createdAt, Instant updatedAt, String integrity) {
        this(runId, workflow, revision, status, tier, idempotencyKey, correlationKey, nodes, input, output, version,
                createdAt, updatedAt, integrity, null);
    }

    public RunView withDeadLetters(DeadLetters parked) {
        return new RunView(runId, workflow, revision, status, tier, idempotencyKey, correlationKey, nodes, input, output,
                version, createdAt, updatedAt, integrity, parked);
    }

    /** The run's wakeups and timers dead-lettered after {@code failedDeliveries} failed ticks; see operations.md. */
    @RegisterForReflection
    public record DeadLetters(int items, int failedDeliveries, String lastError, Instant since) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @RegisterForReflection
    public record NodeView(String state, int attempts, JsonNode output, String error) {
    }
}
