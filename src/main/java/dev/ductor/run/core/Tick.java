package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.run.core.Effect.DispatchTask;
import dev.ductor.run.core.Effect.ScheduleTimer;
import dev.ductor.run.core.Input.CancelRequested;
import dev.ductor.run.core.Input.ForceFail;
import dev.ductor.run.core.Input.LeaseExpired;
import dev.ductor.run.core.Input.SignalReceived;
import dev.ductor.run.core.Input.TaskCompleted;
import dev.ductor.run.core.Input.TaskFailed;
import dev.ductor.run.core.Input.TimerFired;
import dev.ductor.workflow.model.NodeDefinition;
import dev.ductor.workflow.model.NodeType;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The coordinator's tick: a pure function from a loaded run, what happened to it, and the time, to the
 * run's next state and the effects to commit with it. No clock, no database, no framework: the same
 * snapshot and inputs always give the same result, which is what makes a lost race safe to recompute.
 *
 * <p>One tick applies every input it is given (so a burst of results or signals costs one commit), then
 * starts every node whose dependencies are satisfied, repeating until nothing more can start.
 */
public final class Tick {

    private final RunSnapshot run;
    private final Instant now;
    private final Map<String, NodeDefinition> definitions;
    private final Map<String, NodeState> nodes;
    private final List<Transition> transitions = new ArrayList<>();
    private final List<Effect> effects = new ArrayList<>();
    private final Set<Long> consumed = new HashSet<>();
    private final Set<Long> discarded = new HashSet<>();
    private final List<SignalReceived> unclaimedSignals = new ArrayList<>();
    private final List<SignalReceived> deliveredThisPass = new ArrayList<>();
    private final List<Input.OperatorAction> appliedActions = new ArrayList<>();
    private final List<OperatorActions.Refusal> refusedActions = new ArrayList<>();
    private RunStatus status;
    private String endedBecause;
    private long seq;

    private Tick(RunSnapshot run, Instant now) {
        this.run = run;
        this.now = now;
        this.definitions = run.definition().nodesById();
        this.nodes = new LinkedHashMap<>(run.nodes());
        this.status = run.status();
        this.seq = run.lastSeq();
    }

    public static TickResult tick(RunSnapshot run, List<? extends Input> inputs, Instant now) {
        return new Tick(run, now).run(inputs);
    }

    private TickResult run(List<? extends Input> inputs) {
        for (Input input : inputs) {
            if (status.isTerminal()) {
                consumed.add(input.id()); // nothing can change a finished run; drain what is left
                if (input instanceof Input.OperatorAction action) {
                    refuse(action, "the run is " + status + endedBecause());
                }
            } else {
                apply(input);
            }
        }
        if (!status.isTerminal()) {
            failRunIfANodeFailed();
        }
        if (!status.isTerminal()) {
            startReadyNodes();
            succeedRunIfAllDone();
        }
        if (status.isTerminal()) {
            unclaimedSignals.forEach(s -> consumed.add(s.id())); // no node will ever wait for them now
        }
        if (status == RunStatus.FAILED || status == RunStatus.CANCELLED) {
            // Applied, then undone when the run ended: the operator's action changed nothing that lasts.
            appliedActions.forEach(a -> refuse(a, "the run ended " + status + endedBecause()));
        }
        consumed.remove(0L); // inputs that did not come from the inbox need no marking
        discarded.removeAll(consumed);
        return new TickResult(status, nodes, seq, status == RunStatus.SUCCEEDED ? outputs() : null,
                transitions, effects, consumed, discarded, refusedActions);
    }

    private void apply(Input input) {
        // Java 17: no pattern matching for switch yet, so an instanceof chain over the sealed type.
        if (input instanceof TaskCompleted done) {
            consumed.add(done.id());
            if (isCurrentAttempt(done.node(), done.attempt())) {
                move(done.node(), NodeStatus.SUCCEEDED, "attempt " + done.attempt() + " completed");
                nodes.compute(done.node(), (id, n) -> n.withOutput(done.output()).withError(null));
            }
        } else if (input instanceof TaskFailed failed) {
            consumed.add(failed.id());
            if (isCurrentAttempt(failed.node(), failed.attempt())) {
                retryOrFail(failed);
            }
        } else if (input instanceof LeaseExpired expired) {
            consumed.add(expired.id());
            if (isCurrentAttempt(expired.node(), expired.attempt())) {
                dispatchAgainOrFail(expired);
            }
        } else if (input instanceof TimerFired fired) {
            consumed.add(fired.id());
            fireTimer(fired.node());
        } else if (input instanceof SignalReceived signal) {
            if (deliver(signal)) {
                consumed.add(signal.id());
            } else if (!anyNodeMayStillWaitFor(signal.name())) {
                discarded.add(signal.id()); // no node will ever wait for it: drop it without a commit
            } else {
                unclaimedSignals.add(signal); // kept in the inbox until its node waits for it
            }
        } else if (input instanceof CancelRequested cancel) {
            consumed.add(cancel.id());
            finish(RunStatus.CANCELLED, "cancelled: " + cancel.reason());
        } else if (input instanceof Input.OperatorAction action) {
            consumed.add(action.id());
            applyOperatorAction(action);
        } else if (input instanceof ForceFail force) {
            consumed.add(force.id());
            if (seq == force.decidedAtSeq()) { // otherwise the run moved since the verdict: it judged a state that is gone
                finish(RunStatus.FAILED, "forced failure: " + force.reason());
            }
        } else {
            throw new IllegalArgumentException("unknown input " + input);
        }
    }

    private void applyOperatorAction(Input.OperatorAction action) {
        String refusal = OperatorActions.refusal(run.definition(), nodes, action.node(), action.action());
        if (refusal != null) {
            refuse(action, refusal); // decided on the state it meets: after every input before it
            return;
        }
        appliedActions.add(action);
        NodeDefinition definition = definitions.get(action.node());
        int attempts = nodes.get(action.node()).attempts();
        if (definition.type() == NodeType.TASK && attempts > 0) {
            effects.add(new Effect.SupersedeTasks(action.node(), attempts)); // the old attempt must not run as well
        }
        if (action.action() == OperatorActions.Action.SKIP) {
            move(action.node(), NodeStatus.SKIPPED, "skipped by an operator");
        } else {
            int next = attempts + 1;
            move(action.node(), NodeStatus.RUNNING, "retried by an operator: attempt " + next + " now");
            nodes.compute(action.node(), (id, n) -> n.withAttempts(next));
            effects.add(dispatch(definition, next, now));
        }
    }

    private String endedBecause() {
        return endedBecause == null ? "" : " (" + endedBecause + ")";
    }

    private void refuse(Input.OperatorAction action, String reason) {
        refusedActions.add(new OperatorActions.Refusal(action.node(), action.action(), reason));
    }

    private boolean isCurrentAttempt(String node, int attempt) {
        NodeState state = nodes.get(node);
        return state != null && state.state() == NodeStatus.RUNNING && state.attempts() == attempt;
    }

    private void retryOrFail(TaskFailed failed) {
        NodeDefinition definition = definitions.get(failed.node());
        int next = failed.attempt() + 1;
        int policyNext = nodes.get(failed.node()).policyAttempts() + 1; // dispatches after a lost lease do not count
        if (failed.retryable() && policyNext <= definition.retry().maxAttempts()) {
            Duration delay = definition.retry().delayBefore(policyNext);
            move(failed.node(), NodeStatus.RUNNING, "attempt " + failed.attempt() + " failed: " + failed.error()
                    + "; attempt " + next + " in " + delay);
            nodes.compute(failed.node(), (id, n) -> n.withAttempts(next).withError(failed.error()));
            effects.add(dispatch(definition, next, now.plus(delay)));
        } else {
            move(failed.node(), NodeStatus.FAILED, "attempt " + failed.attempt() + " failed"
                    + (failed.retryable() ? " (no attempts left)" : " (not retryable)") + ": " + failed.error());
            nodes.compute(failed.node(), (id, n) -> n.withError(failed.error()));
        }
    }

    /**
     * A lost lease: the same node again under the next attempt number (so a late report of the lost one is fenced
     * off and its inbox key stays its own), at once and outside the retry policy, while the budget lasts.
     */
    private void dispatchAgainOrFail(LeaseExpired expired) {
        NodeDefinition definition = definitions.get(expired.node());
        int retries = nodes.get(expired.node()).leaseRetries();
        if (retries < expired.retryBudget()) {
            int next = expired.attempt() + 1;
            move(expired.node(), NodeStatus.RUNNING, "attempt " + expired.attempt() + " failed: " + expired.error()
                    + "; attempt " + next + " now, retry " + (retries + 1) + " of " + expired.retryBudget()
                    + " for lost leases, not counted against maxAttempts");
            nodes.compute(expired.node(), (id, n) -> n.withAttempts(next).withLeaseRetries(retries + 1)
                    .withError(expired.error()));
            effects.add(dispatch(definition, next, now));
        } else {
            int times = retries + 1;
            String error = "lease expired " + (times == 1 ? "once" : times + " times") + ": "
                    + expired.error().replaceFirst("^lease expired: ", "");
            move(expired.node(), NodeStatus.FAILED, "attempt " + expired.attempt() + " failed: " + error + " ("
                    + retries + " retries for lost leases spent)");
            nodes.compute(expired.node(), (id, n) -> n.withError(error));
        }
    }

    private void fireTimer(String node) {
        NodeState state = nodes.get(node);
        if (state == null || state.state() != NodeStatus.WAITING) {
            return; // a late or repeated timer: already handled
        }
        NodeDefinition definition = definitions.get(node);
        if (definition.type() == NodeType.TIMER) {
            move(node, NodeStatus.SUCCEEDED, "timer fired");
        } else {
            move(node, NodeStatus.FAILED, "signal '" + definition.signal() + "' timed out after " + definition.timeout());
            nodes.compute(node, (id, n) -> n.withError("timed out waiting for signal '" + definition.signal() + "'"));
        }
    }

    private boolean anyNodeMayStillWaitFor(String name) {
        return definitions.values().stream().anyMatch(d -> d.type() == NodeType.SIGNAL && name.equals(d.signal())
                && nodes.get(d.id()).state() == NodeStatus.PENDING);
    }

    /** Hands a signal to every node waiting for its name; false when none waits yet. */
    private boolean deliver(SignalReceived signal) {
        boolean delivered = false;
        for (NodeDefinition definition : definitions.values()) {
            if (definition.type() == NodeType.SIGNAL && signal.name().equals(definition.signal())
                    && nodes.get(definition.id()).state() == NodeStatus.WAITING) {
                move(definition.id(), NodeStatus.SUCCEEDED, "signal '" + signal.name() + "' received");
                nodes.compute(definition.id(), (id, n) -> n.withOutput(signal.payload()));
                delivered = true;
            }
        }
        return delivered;
    }

    private void failRunIfANodeFailed() {
        nodes.entrySet().stream()
                .filter(e -> e.getValue().state() == NodeStatus.FAILED)
                .findFirst()
                .ifPresent(e -> finish(RunStatus.FAILED, "node '" + e.getKey() + "' failed"));
    }

    private void startReadyNodes() {
        boolean started;
        do {
            started = false;
            // A node that only starts waiting after another consumed a signal (it depends on it) needs a signal
            // of its own, so early signals are shared only among nodes starting in the same pass.
            deliveredThisPass.clear();
            for (NodeDefinition definition : definitions.values()) {
                if (nodes.get(definition.id()).state() == NodeStatus.PENDING && dependenciesSatisfied(definition)) {
                    start(definition);
                    started = true;
                }
            }
        } while (started);
    }

    private boolean dependenciesSatisfied(NodeDefinition definition) {
        return definition.dependsOn().stream().allMatch(dep -> nodes.get(dep).state().satisfiesDependants());
    }

    private void start(NodeDefinition definition) {
        switch (definition.type()) {
            case TASK -> {
                move(definition.id(), NodeStatus.RUNNING, "dispatched attempt 1 to '" + definition.handler() + "'");
                nodes.compute(definition.id(), (id, n) -> n.withAttempts(1));
                effects.add(dispatch(definition, 1, now));
            }
            case TIMER -> {
                Instant due = now.plus(definition.duration());
                move(definition.id(), NodeStatus.WAITING, "timer armed until " + due);
                effects.add(new ScheduleTimer(definition.id(), due));
            }
            case SIGNAL -> {
                move(definition.id(), NodeStatus.WAITING, "waiting for signal '" + definition.signal() + "'");
                if (definition.timeout() != null) {
                    effects.add(new ScheduleTimer(definition.id(), now.plus(definition.timeout())));
                }
                deliverEarlySignal(definition);
            }
        }
    }

    /** A signal that arrived before its node waited for it is delivered the moment the node starts waiting. */
    private void deliverEarlySignal(NodeDefinition definition) {
        Optional<SignalReceived> shared = deliveredThisPass.stream()
                .filter(s -> s.name().equals(definition.signal()))
                .findFirst();
        if (shared.isPresent()) {
            deliver(shared.get()); // nodes that start waiting together share one signal, as waiting nodes do
            return;
        }
        unclaimedSignals.stream()
                .filter(s -> s.name().equals(definition.signal()))
                .findFirst()
                .ifPresent(signal -> {
                    deliver(signal);
                    consumed.add(signal.id());
                    unclaimedSignals.remove(signal);
                    deliveredThisPass.add(signal);
                });
    }

    private void succeedRunIfAllDone() {
        if (nodes.values().stream().allMatch(n -> n.state().satisfiesDependants())) {
            status.checkMoveTo(RunStatus.SUCCEEDED);
            record(null, status.name(), RunStatus.SUCCEEDED.name(), "all nodes done");
            status = RunStatus.SUCCEEDED;
        }
    }

    /** Ends the run and closes every node that still owed it something. */
    private void finish(RunStatus terminal, String cause) {
        nodes.forEach((id, state) -> {
            if (state.state().isOpen()) {
                move(id, NodeStatus.CANCELLED, "run " + terminal.name().toLowerCase());
            }
        });
        status.checkMoveTo(terminal);
        record(null, status.name(), terminal.name(), cause);
        status = terminal;
        endedBecause = cause;
    }

    private void move(String node, NodeStatus next, String cause) {
        NodeState current = nodes.get(node);
        nodes.put(node, current.moveTo(next));
        record(node, current.state().name(), next.name(), cause);
    }

    private void record(String node, String from, String to, String cause) {
        transitions.add(new Transition(++seq, node, from, to, cause));
    }

    private DispatchTask dispatch(NodeDefinition definition, int attempt, Instant availableAt) {
        JsonNode input = definition.input() != null ? definition.input() : run.input();
        return new DispatchTask(definition.id(), attempt, definition.handler(), definition.pool(), input, availableAt);
    }

    private JsonNode outputs() {
        ObjectNode outputs = JsonNodeFactory.instance.objectNode();
        nodes.forEach((id, state) -> {
            if (state.output() != null) {
                outputs.set(id, state.output());
            }
        });
        return outputs;
    }
}
