package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;

/** What the run knows about one node. {@code attempts} counts task dispatches (0 before the first). */
public record NodeState(NodeStatus state, int attempts, JsonNode output, String error) {

    public static NodeState pending() {
        return new NodeState(NodeStatus.PENDING, 0, null, null);
    }

    NodeState moveTo(NodeStatus next) {
        state.checkMoveTo(next);
        return new NodeState(next, attempts, output, error);
    }

    NodeState withAttempts(int next) {
        return new NodeState(state, next, output, error);
    }

    NodeState withOutput(JsonNode value) {
        return new NodeState(state, attempts, value, error);
    }

    NodeState withError(String message) {
        return new NodeState(state, attempts, output, message);
    }
}
