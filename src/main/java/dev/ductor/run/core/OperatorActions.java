package dev.ductor.run.core;

import dev.ductor.workflow.model.NodeDefinition;
import dev.ductor.workflow.model.NodeType;
import dev.ductor.workflow.model.WorkflowDefinition;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What an operator may do to a node of a running run. {@code skip}: a node that has not finished is marked
 * SKIPPED and its dependants go ahead, as if it had succeeded (a branch not taken skips them instead). {@code retry}: a running task gets a new attempt now (a hung worker,
 * a long backoff); the old attempt's result, if it ever comes, is ignored as stale.
 */
public final class OperatorActions {

    public enum Action {
        RETRY, SKIP;

        /** Exactly {@code retry} or {@code skip}, as the contract spells them. */
        public static Optional<Action> fromWire(String name) {
            for (Action action : values()) {
                if (action.name().toLowerCase(Locale.ROOT).equals(name)) {
                    return Optional.of(action);
                }
            }
            return Optional.empty();
        }
    }

    /** An action that did not apply to the state it met, and why: a PATCH that carried it is refused as a whole. */
    public record Refusal(String node, Action action, String reason) {
    }

    private OperatorActions() {
    }

    /** Why the action cannot apply to the node as it is, or null when it can. */
    public static String refusal(WorkflowDefinition definition, Map<String, NodeState> nodes, String node, Action action) {
        Optional<NodeDefinition> nodeDefinition = definition.node(node);
        if (nodeDefinition.isEmpty()) {
            return "the workflow has no node '" + node + "'";
        }
        NodeStatus state = nodes.get(node).state();
        if (action == Action.SKIP) {
            return state.isOpen() ? null : "node '" + node + "' is " + state + "; only pending, running or waiting nodes can be skipped";
        }
        if (nodeDefinition.get().type() != NodeType.TASK) {
            return "node '" + node + "' is a " + nodeDefinition.get().type().wireName() + "; only task nodes can be retried";
        }
        if (nodeDefinition.get().isFanOut()) {
            return "node '" + node + "' is a fan-out; its items retry under its retry policy, and it cannot be retried as"
                    + " a whole while it runs";
        }
        return state == NodeStatus.RUNNING ? null : "node '" + node + "' is " + state + "; only a running task can be retried";
    }
}
