package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * What the run knows about one node. {@code attempts} counts task dispatches (0 before the first), and is the
 * attempt number of the latest one; {@code leaseRetries} counts those of them dispatched again because a lease
 * expired ({@link Input.LeaseExpired}), which the node's {@code maxAttempts} does not count.
 *
 * @param input      the input its expressions gave it (for a fan-out, the list of its items), kept so that a retry
 *                   gets the same and a reader sees what it was given; null when the definition's input is static (or
 *                   absent), since then the definition says it
 * @param items      a fan-out's items, each with its own state, attempts, output and error; null for any other node
 * @param byOperator an operator skipped it: its dependants go ahead as if it had succeeded, where a branch not taken
 *                   ({@code when} false, a trigger that cannot hold) skips them too
 */
public record NodeState(NodeStatus state, int attempts, JsonNode output, String error, int leaseRetries,
                        JsonNode input, List<NodeState> items, boolean byOperator) {

    public NodeState {
        items = items == null ? null : List.copyOf(items);
    }

    public NodeState(NodeStatus state, int attempts, JsonNode output, String error, int leaseRetries) {
        this(state, attempts, output, error, leaseRetries, null, null, false);
    }

    public NodeState(NodeStatus state, int attempts, JsonNode output, String error) {
        this(state, attempts, output, error, 0);
    }

    public static NodeState pending() {
        return new NodeState(NodeStatus.PENDING, 0, null, null);
    }

    NodeState moveTo(NodeStatus next) {
        state.checkMoveTo(next);
        return new NodeState(next, attempts, output, error, leaseRetries, input, items, byOperator);
    }

    NodeState withAttempts(int next) {
        return new NodeState(state, next, output, error, leaseRetries, input, items, byOperator);
    }

    NodeState withOutput(JsonNode value) {
        return new NodeState(state, attempts, value, error, leaseRetries, input, items, byOperator);
    }

    NodeState withError(String message) {
        return new NodeState(state, attempts, output, message, leaseRetries, input, items, byOperator);
    }

    NodeState withLeaseRetries(int count) {
        return new NodeState(state, attempts, output, error, count, input, items, byOperator);
    }

    NodeState withInput(JsonNode given) {
        return new NodeState(state, attempts, output, error, leaseRetries, given, items, byOperator);
    }

    NodeState withItems(List<NodeState> next) {
        return new NodeState(state, attempts, output, error, leaseRetries, input, next, byOperator);
    }

    NodeState withItem(int index, NodeState item) {
        List<NodeState> next = new ArrayList<>(items);
        next.set(index, item);
        return withItems(next);
    }

    NodeState skippedByOperator() {
        return new NodeState(state, attempts, output, error, leaseRetries, input, items, true);
    }

    /** Attempts the node's retry policy counts: dispatches less those that only replaced a lost lease. */
    int policyAttempts() {
        return attempts - leaseRetries;
    }
}
