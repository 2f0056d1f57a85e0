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
 * @param byOperator    an operator skipped it: its dependants go ahead as if it had succeeded, where a branch not
 *                      taken ({@code when} false, a trigger that cannot hold) skips them too
 * @param priorAttempts attempts made before the run was last reset: numbers go on counting across a reset (so a late
 *                      report of an old attempt is fenced off), and the retry policy counts only the attempts since
 */
public record NodeState(NodeStatus state, int attempts, JsonNode output, String error, int leaseRetries,
                        JsonNode input, List<NodeState> items, boolean byOperator, int priorAttempts) {

    public NodeState {
        items = items == null ? null : List.copyOf(items);
    }

    public NodeState(NodeStatus state, int attempts, JsonNode output, String error, int leaseRetries,
                     JsonNode input, List<NodeState> items, boolean byOperator) {
        this(state, attempts, output, error, leaseRetries, input, items, byOperator, 0);
    }

    public NodeState(NodeStatus state, int attempts, JsonNode output, String error, int leaseRetries) {
        this(state, attempts, output, error, leaseRetries, null, null, false, 0);
    }

    public NodeState(NodeStatus state, int attempts, JsonNode output, String error) {
        this(state, attempts, output, error, 0);
    }

    public static NodeState pending() {
        return new NodeState(NodeStatus.PENDING, 0, null, null);
    }

    NodeState moveTo(NodeStatus next) {
        state.checkMoveTo(next);
        return new NodeState(next, attempts, output, error, leaseRetries, input, items, byOperator, priorAttempts);
    }

    NodeState withAttempts(int next) {
        return new NodeState(state, next, output, error, leaseRetries, input, items, byOperator, priorAttempts);
    }

    NodeState withOutput(JsonNode value) {
        return new NodeState(state, attempts, value, error, leaseRetries, input, items, byOperator, priorAttempts);
    }

    NodeState withError(String message) {
        return new NodeState(state, attempts, output, message, leaseRetries, input, items, byOperator, priorAttempts);
    }

    NodeState withLeaseRetries(int count) {
        return new NodeState(state, attempts, output, error, count, input, items, byOperator, priorAttempts);
    }

    NodeState withInput(JsonNode given) {
        return new NodeState(state, attempts, output, error, leaseRetries, given, items, byOperator, priorAttempts);
    }

    NodeState withItems(List<NodeState> next) {
        return new NodeState(state, attempts, output, error, leaseRetries, input, next, byOperator, priorAttempts);
    }

    NodeState withItem(int index, NodeState item) {
        List<NodeState> next = new ArrayList<>(items);
        next.set(index, item);
        return withItems(next);
    }

    NodeState skippedByOperator() {
        return new NodeState(state, attempts, output, error, leaseRetries, input, items, true, priorAttempts);
    }

    /**
     * A reset's fresh start: PENDING again, its attempts counted as earlier ones, its output, error and input gone; a
     * fan-out keeps its items' attempt counts for the same reason.
     */
    NodeState reopened() {
        List<NodeState> reopenedItems = items == null ? null : items.stream().map(NodeState::reopened).toList();
        return new NodeState(NodeStatus.PENDING, attempts, null, null, 0, null, reopenedItems, false, attempts);
    }

    /** Attempts the node's retry policy counts: dispatches since its last reset, less those that replaced a lost lease. */
    int policyAttempts() {
        return attempts - priorAttempts - leaseRetries;
    }
}
