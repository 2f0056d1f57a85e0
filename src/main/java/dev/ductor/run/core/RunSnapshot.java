package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.workflow.model.WorkflowDefinition;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * A run as loaded, at {@code version}: everything the tick may look at, its pinned {@code revision} included
 * (expressions read it as {@code run.revision}). Node states keep the definition's node order.
 */
public record RunSnapshot(
        UUID runId,
        WorkflowDefinition definition,
        RunStatus status,
        Map<String, NodeState> nodes,
        long lastSeq,
        long version,
        JsonNode input,
        int revision) {

    public RunSnapshot {
        nodes = Collections.unmodifiableMap(new LinkedHashMap<>(nodes));
    }

    public RunSnapshot(UUID runId, WorkflowDefinition definition, RunStatus status, Map<String, NodeState> nodes,
                       long lastSeq, long version, JsonNode input) {
        this(runId, definition, status, nodes, lastSeq, version, input, 1);
    }

    /** A run that has not ticked yet: every node pending, nothing in its history. */
    public static RunSnapshot fresh(UUID runId, WorkflowDefinition definition, JsonNode input) {
        Map<String, NodeState> nodes = new LinkedHashMap<>();
        definition.nodes().forEach(n -> nodes.put(n.id(), NodeState.pending()));
        return new RunSnapshot(runId, definition, RunStatus.RUNNING, nodes, 0, 0, input);
    }
}
