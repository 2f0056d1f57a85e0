package dev.ductor.run.read;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.runtime.annotations.RegisterForReflection;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A run as the API shows it; {@code version} is the {@code db_record_version}, also sent as the ETag.
 * {@code deadLetters} is present only on a single run's GET, and only while the run is parked as poison.
 * {@code integrity} is absent for a run whose row matches its checksum, {@code "corrupt"} when it does not (listed,
 * so a page still serves; a single GET of it is refused instead). {@code tags} is absent for a run started without.
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
        DeadLetters deadLetters,
        @JsonInclude(JsonInclude.Include.ALWAYS)
        @Schema(type = SchemaType.STRING, format = "uuid", nullable = true, description = "The run whose workflow node started this one; null for a top-level run")
        UUID parentRunId,
        List<ChildView> children,
        Map<String, String> tags) {

    public RunView(UUID runId, String workflow, int revision, String status, String tier, String idempotencyKey,
                   String correlationKey, Map<String, NodeView> nodes, JsonNode input, JsonNode output, long version,
                   Instant createdAt, Instant updatedAt, String integrity, DeadLetters deadLetters) {
        this(runId, workflow, revision, status, tier, idempotencyKey, correlationKey, nodes, input, output, version,
                createdAt, updatedAt, integrity, deadLetters, null, null, null);
    }

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
                version, createdAt, updatedAt, integrity, parked, parentRunId, children, tags);
    }

    /** The run with the parent it answers to (null for a top-level run) and the child runs its nodes started. */
    public RunView withFamily(UUID parent, List<ChildView> started) {
        return new RunView(runId, workflow, revision, status, tier, idempotencyKey, correlationKey, nodes, input, output,
                version, createdAt, updatedAt, integrity, deadLetters, parent, started, tags);
    }

    /** The run with the tags it was started with, sorted by key; null (left out of the JSON) when it has none. */
    public RunView withTags(Map<String, String> startedWith) {
        return new RunView(runId, workflow, revision, status, tier, idempotencyKey, correlationKey, nodes, input, output,
                version, createdAt, updatedAt, integrity, deadLetters, parentRunId, children, startedWith);
    }

    /** A child run a {@code workflow} node started: one per attempt. */
    @RegisterForReflection
    public record ChildView(UUID runId, String node, int attempt, String workflow, String status) {
    }

    /** The run's wakeups and timers dead-lettered after {@code failedDeliveries} failed ticks; see operations.md. */
    @RegisterForReflection
    public record DeadLetters(int items, int failedDeliveries, String lastError, Instant since) {
    }

    /**
     * One node: {@code input} is what its expressions gave it (absent when the definition's input is static), and a
     * fan-out's {@code items} each have their own state, attempts, output and error; {@code skippedBy} is
     * {@code "operator"} for a node an operator skipped (its dependants went ahead).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @RegisterForReflection
    public record NodeView(String state, int attempts, JsonNode output, String error, JsonNode input,
                           List<NodeView> items, String skippedBy) {

        public NodeView(String state, int attempts, JsonNode output, String error) {
            this(state, attempts, output, error, null, null, null);
        }

        public static NodeView of(dev.ductor.run.core.NodeState n) {
            return new NodeView(n.state().name(), n.attempts(), n.output(), n.error(), n.input(),
                    n.items() == null ? null : n.items().stream().map(NodeView::of).toList(), n.byOperator() ? "operator" : null);
        }
    }
}
