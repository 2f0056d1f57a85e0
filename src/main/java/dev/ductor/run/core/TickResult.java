package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The new state a tick computed and what it causes. A result with no transitions and nothing consumed
 * is a no-op: the run row is not written and the version stays. {@code discardedInputs} are signals that no
 * node can ever wait for any more (their nodes finished, or the name is unknown); which nodes are still
 * pending only ever shrinks, so dropping them needs no version check and never costs a commit.
 * {@code refusedActions} are operator actions that did not apply to the state they met (after the inputs before
 * them), or whose run this tick ended FAILED or CANCELLED anyway: a caller must not report those as done.
 */
public record TickResult(
        RunStatus status,
        Map<String, NodeState> nodes,
        long lastSeq,
        JsonNode output,
        List<Transition> transitions,
        List<Effect> effects,
        Set<Long> consumedInputs,
        Set<Long> discardedInputs,
        List<OperatorActions.Refusal> refusedActions) {

    public TickResult {
        nodes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(nodes));
        transitions = List.copyOf(transitions);
        effects = List.copyOf(effects);
        consumedInputs = Set.copyOf(consumedInputs);
        discardedInputs = Set.copyOf(discardedInputs);
        refusedActions = List.copyOf(refusedActions);
    }

    public boolean isNoop() {
        return transitions.isEmpty() && consumedInputs.isEmpty();
    }

    /** True when the run moved forward (a node or the run changed state), not merely consumed stale input. */
    public boolean madeProgress() {
        return !transitions.isEmpty();
    }
}
