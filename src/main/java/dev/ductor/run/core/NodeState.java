package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the run knows about one node. {@code attempts} counts task dispatches (0 before the first), and is the
 * attempt number of the latest one; {@code leaseRetries} counts those of them dispatched again because a lease
 * expired ({@link Input.LeaseExpired}), which the node's {@code maxAttempts} does not count.
 */
public record NodeState(NodeStatus state, int attempts, JsonNode output, String error, int leaseRetries) {

    public NodeState(NodeStatus state, int attempts, JsonNode output, String error) {
        this(state, attempts, output, error, 0);
    }

    public static NodeState pending() {
        return new NodeState(NodeStatus.PENDING, 0, null, null);
    }

    NodeState moveTo(NodeStatus next) {
        state.checkMoveTo(next);
        return new NodeState(next, attempts, output, error, leaseRetries);
    }

    NodeState withAttempts(int next) {
        return new NodeState(state, next, output, error, leaseRetries);
    }

    NodeState withOutput(JsonNode value) {
        return new NodeState(state, attempts, value, error, leaseRetries);
    }

    NodeState withError(String message) {
        return new NodeState(state, attempts, output, message, leaseRetries);
    }

    NodeState withLeaseRetries(int count) {
        return new NodeState(state, attempts, output, error, count);
    }

    /** Attempts the node's retry policy counts: dispatches less those that only replaced a lost lease. */
    int policyAttempts() {
        return attempts - leaseRetries;
    }
}
