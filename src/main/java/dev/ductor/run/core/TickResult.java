package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The new state a tick computed and what it causes. A result with no transitions and nothing consumed
 * is a no-op: the shell writes nothing and the version stays.
 */
public record TickResult(
        RunStatus status,
        Map<String, NodeState> nodes,
        long lastSeq,
        JsonNode output,
        List<Transition> transitions,
        List<Effect> effects,
        Set<Long> consumedInputs) {

    public TickResult {
        nodes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(nodes));
        transitions = List.copyOf(transitions);
        effects = List.copyOf(effects);
        consumedInputs = Set.copyOf(consumedInputs);
    }

    public boolean isNoop() {
        return transitions.isEmpty() && consumedInputs.isEmpty();
    }

    /** True when the run moved forward (a node or the run changed state), not merely consumed stale input. */
    public boolean madeProgress() {
        return !transitions.isEmpty();
    }
}
