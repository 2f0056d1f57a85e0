package dev.ductor.workflow.model;

import dev.ductor.workflow.expr.Template;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A validated workflow: a DAG of nodes in declaration order, the template of the run's output (null: the map of
 * node outputs), and how long its finished runs are kept (null: {@code ductor.retention.default}). Immutable once a
 * revision is stored.
 */
public record WorkflowDefinition(String name, List<NodeDefinition> nodes, Template output, Duration retention) {

    public WorkflowDefinition {
        nodes = List.copyOf(nodes);
    }

    public WorkflowDefinition(String name, List<NodeDefinition> nodes, Template output) {
        this(name, nodes, output, null);
    }

    public WorkflowDefinition(String name, List<NodeDefinition> nodes) {
        this(name, nodes, null, null);
    }

    /** The revision's own retention period, when it names one. */
    public Optional<Duration> ownRetention() {
        return Optional.ofNullable(retention);
    }

    public Optional<NodeDefinition> node(String id) {
        return nodes.stream().filter(n -> n.id().equals(id)).findFirst();
    }

    /** The signal names the signal nodes wait for, sorted, each once: the only signals a run of this revision takes. */
    public List<String> declaredSignals() {
        return nodes.stream().filter(n -> n.type() == NodeType.SIGNAL).map(NodeDefinition::signal).distinct().sorted().toList();
    }

    public Map<String, NodeDefinition> nodesById() {
        Map<String, NodeDefinition> byId = new LinkedHashMap<>();
        nodes.forEach(n -> byId.put(n.id(), n));
        return byId;
    }
}
