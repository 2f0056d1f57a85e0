package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
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
import dev.ductor.workflow.expr.Bindings;
import dev.ductor.workflow.expr.NodeFacts;
import dev.ductor.workflow.expr.RunFacts;
import dev.ductor.workflow.expr.Template;
import dev.ductor.workflow.model.NodeDefinition;
import dev.ductor.workflow.model.NodeType;
import dev.ductor.workflow.model.RunIf;
import dev.ductor.workflow.model.WorkflowDefinition;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The coordinator's tick: a pure function from a loaded run, what happened to it, and the time, to the
 * run's next state and the effects to commit with it. No clock, no database, no framework: the same
 * snapshot and inputs always give the same result, which is what makes a lost race safe to recompute.
 *
 * <p>One tick applies every input it is given (so a burst of results or signals costs one commit), then decides
 * every pending node whose dependencies have finished (its trigger and {@code when}: start it or skip it), repeating
 * until nothing more can be decided. The run ends when no node is open any more: FAILED when a node failed that was
 * not allowed to, else SUCCEEDED. Expressions are evaluated here, on the snapshot, so they are as repeatable as the
 * rest; one that fails fails its node, never the tick.
 */
public final class Tick {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final RunSnapshot run;
    private final Instant now;
    private final TickLimits limits;
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
    private JsonNode output;
    private long seq;

    private Tick(RunSnapshot run, Instant now, TickLimits limits) {
        this.run = run;
        this.now = now;
        this.limits = limits;
        this.definitions = run.definition().nodesById();
        this.nodes = new LinkedHashMap<>(run.nodes());
        this.status = run.status();
        this.seq = run.lastSeq();
    }

    public static TickResult tick(RunSnapshot run, List<? extends Input> inputs, Instant now) {
        return tick(run, inputs, now, TickLimits.DEFAULT);
    }

    public static TickResult tick(RunSnapshot run, List<? extends Input> inputs, Instant now, TickLimits limits) {
        return new Tick(run, now, limits).run(inputs);
    }

    /**
     * Reopens a finished run: the nodes {@code from} and everything downstream of them go back to PENDING (their
     * attempts go on counting; their outputs stay in the history), the run is RUNNING again, on {@code target} (its
     * revision or the workflow's current one), and the tick then starts what can start. One result, committed as one
     * versioned write like any tick's. A node of {@code target} the run did not have yet starts as a new one.
     */
    public static TickResult reset(RunSnapshot run, WorkflowDefinition target, int targetRevision, Set<String> from,
                                   String cause, Instant now, TickLimits limits) {
        Set<String> reopened = Descendants.of(target, from);
        Map<String, NodeState> states = new LinkedHashMap<>();
        for (NodeDefinition node : target.nodes()) {
            NodeState before = run.nodes().get(node.id());
            states.put(node.id(), before == null ? NodeState.pending() : reopened.contains(node.id()) ? before.reopened() : before);
        }
        RunSnapshot reopenedRun = new RunSnapshot(run.runId(), target, RunStatus.RUNNING, states, run.lastSeq(),
                run.version(), run.input(), targetRevision);
        Tick tick = new Tick(reopenedRun, now, limits);
        tick.record(null, run.status().name(), RunStatus.RUNNING.name(), cause
                + (targetRevision == run.revision() ? "" : "; now on revision " + targetRevision));
        for (NodeDefinition node : target.nodes()) {
            NodeState before = run.nodes().get(node.id());
            if (reopened.contains(node.id()) && before != null && before.state() != NodeStatus.PENDING) {
                tick.record(node.id(), before.state().name(), NodeStatus.PENDING.name(), "reset");
            }
        }
        return tick.run(List.of());
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
            decidePendingNodes();
            endRunIfNothingCanRun();
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
        return new TickResult(status, nodes, seq, status == RunStatus.SUCCEEDED ? output : null,
                transitions, effects, consumed, discarded, refusedActions);
    }

    private void apply(Input input) {
        // Java 17: no pattern matching for switch yet, so an instanceof chain over the sealed type.
        if (input instanceof TaskCompleted done) {
            consumed.add(done.id());
            Optional<ItemNode> item = itemOf(done.node());
            if (item.isPresent()) {
                completeItem(item.get(), done);
            } else if (isCurrentAttempt(done.node(), done.attempt())) {
                move(done.node(), NodeStatus.SUCCEEDED, "attempt " + done.attempt() + " completed");
                nodes.compute(done.node(), (id, n) -> n.withOutput(done.output()).withError(null));
            }
        } else if (input instanceof TaskFailed failed) {
            consumed.add(failed.id());
            Optional<ItemNode> item = itemOf(failed.node());
            if (item.isPresent()) {
                failItem(item.get(), failed);
            } else if (isCurrentAttempt(failed.node(), failed.attempt())) {
                retryOrFail(failed);
            }
        } else if (input instanceof LeaseExpired expired) {
            consumed.add(expired.id());
            Optional<ItemNode> item = itemOf(expired.node());
            if (item.isPresent()) {
                itemLeaseExpired(item.get(), expired);
            } else if (isCurrentAttempt(expired.node(), expired.attempt())) {
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
        stopWhatRuns(definition);
        if (action.action() == OperatorActions.Action.SKIP) {
            move(action.node(), NodeStatus.SKIPPED, "skipped by an operator: its dependants go ahead");
            nodes.compute(action.node(), (id, n) -> n.skippedByOperator());
        } else {
            int next = attempts + 1;
            move(action.node(), NodeStatus.RUNNING, "retried by an operator: attempt " + next + " now");
            nodes.compute(action.node(), (id, n) -> n.withAttempts(next));
            effects.add(dispatch(definition, next, now));
        }
    }

    /** The old attempt of a node an operator acts on must not go on as well: its tasks, its items' tasks, its child. */
    private void stopWhatRuns(NodeDefinition definition) {
        NodeState state = nodes.get(definition.id());
        if (definition.type() == NodeType.WORKFLOW && state.state() == NodeStatus.RUNNING) {
            effects.add(new Effect.CancelChild(definition.id(), state.attempts()));
        } else if (state.items() != null) {
            for (int i = 0; i < state.items().size(); i++) {
                NodeState item = state.items().get(i);
                if (item.attempts() > 0) {
                    effects.add(new Effect.SupersedeTasks(ItemNode.name(definition.id(), i), item.attempts()));
                }
            }
        } else if (definition.type() == NodeType.TASK && state.attempts() > 0) {
            effects.add(new Effect.SupersedeTasks(definition.id(), state.attempts()));
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
            String error = leaseError(expired, retries);
            move(expired.node(), NodeStatus.FAILED, "attempt " + expired.attempt() + " failed: " + error + " ("
                    + retries + " retries for lost leases spent)");
            nodes.compute(expired.node(), (id, n) -> n.withError(error));
        }
    }

    private static String leaseError(LeaseExpired expired, int retries) {
        int times = retries + 1;
        return "lease expired " + (times == 1 ? "once" : times + " times") + ": "
                + expired.error().replaceFirst("^lease expired: ", "");
    }

    // ---- fan-out items: each is a task of its own, under the node's retry policy ----

    /** The fan-out item a task's node name stands for, when the node is a running fan-out that has that item. */
    private Optional<ItemNode> itemOf(String name) {
        if (definitions.containsKey(name)) {
            return Optional.empty();
        }
        return ItemNode.parse(name).filter(item -> {
            NodeState node = nodes.get(item.node());
            return node != null && node.items() != null && item.index() >= 0 && item.index() < node.items().size();
        });
    }

    private boolean isCurrentItemAttempt(ItemNode item, int attempt) {
        NodeState node = nodes.get(item.node());
        if (node.state() != NodeStatus.RUNNING) {
            return false;
        }
        NodeState state = node.items().get(item.index());
        return state.state() == NodeStatus.RUNNING && state.attempts() == attempt;
    }

    private void completeItem(ItemNode item, TaskCompleted done) {
        if (!isCurrentItemAttempt(item, done.attempt())) {
            return;
        }
        moveItem(item, NodeStatus.SUCCEEDED, "attempt " + done.attempt() + " completed",
                s -> s.withOutput(done.output()).withError(null));
        afterItemChange(definitions.get(item.node()));
    }

    private void failItem(ItemNode item, TaskFailed failed) {
        if (!isCurrentItemAttempt(item, failed.attempt())) {
            return;
        }
        NodeDefinition definition = definitions.get(item.node());
        NodeState state = itemState(item);
        int next = failed.attempt() + 1;
        if (failed.retryable() && state.policyAttempts() + 1 <= definition.retry().maxAttempts()) {
            Duration delay = definition.retry().delayBefore(state.policyAttempts() + 1);
            moveItem(item, NodeStatus.RUNNING, "attempt " + failed.attempt() + " failed: " + failed.error()
                    + "; attempt " + next + " in " + delay, s -> s.withAttempts(next).withError(failed.error()));
            dispatchItem(definition, item.index(), next, now.plus(delay));
        } else {
            String error = "attempt " + failed.attempt() + " failed"
                    + (failed.retryable() ? " (no attempts left)" : " (not retryable)") + ": " + failed.error();
            moveItem(item, NodeStatus.FAILED, error, s -> s.withError(failed.error()));
            failFanOut(definition, item.index(), failed.error());
        }
    }

    private void itemLeaseExpired(ItemNode item, LeaseExpired expired) {
        if (!isCurrentItemAttempt(item, expired.attempt())) {
            return;
        }
        NodeDefinition definition = definitions.get(item.node());
        int retries = itemState(item).leaseRetries();
        if (retries < expired.retryBudget()) {
            int next = expired.attempt() + 1;
            moveItem(item, NodeStatus.RUNNING, "attempt " + expired.attempt() + " failed: " + expired.error()
                    + "; attempt " + next + " now, retry " + (retries + 1) + " of " + expired.retryBudget()
                    + " for lost leases, not counted against maxAttempts",
                    s -> s.withAttempts(next).withLeaseRetries(retries + 1).withError(expired.error()));
            dispatchItem(definition, item.index(), next, now);
        } else {
            String error = leaseError(expired, retries);
            moveItem(item, NodeStatus.FAILED, "attempt " + expired.attempt() + " failed: " + error, s -> s.withError(error));
            failFanOut(definition, item.index(), error);
        }
    }

    private NodeState itemState(ItemNode item) {
        return nodes.get(item.node()).items().get(item.index());
    }

    private void moveItem(ItemNode item, NodeStatus next, String cause,
                          java.util.function.UnaryOperator<NodeState> change) {
        NodeState current = itemState(item);
        NodeState moved = change.apply(current.moveTo(next));
        nodes.compute(item.node(), (id, n) -> n.withItem(item.index(), moved));
        record(item.name(), current.state().name(), next.name(), cause);
    }

    /** An item finished: the node succeeds when every item has, else more of its items start, up to its concurrency. */
    private void afterItemChange(NodeDefinition definition) {
        NodeState node = nodes.get(definition.id());
        if (node.items().stream().allMatch(i -> i.state() == NodeStatus.SUCCEEDED)) {
            ArrayNode outputs = JSON.arrayNode(node.items().size());
            node.items().forEach(i -> outputs.add(i.output() == null ? JSON.nullNode() : i.output()));
            move(definition.id(), NodeStatus.SUCCEEDED, "all " + node.items().size() + " items completed");
            nodes.compute(definition.id(), (id, n) -> n.withOutput(outputs).withError(null));
        } else {
            dispatchItems(definition);
        }
    }

    /** One item failed past its retries: the node fails, and its other running items are stopped. */
    private void failFanOut(NodeDefinition definition, int failedIndex, String error) {
        NodeState node = nodes.get(definition.id());
        for (int i = 0; i < node.items().size(); i++) {
            NodeState item = node.items().get(i);
            if (item.state().isOpen()) {
                if (item.attempts() > 0) {
                    effects.add(new Effect.SupersedeTasks(ItemNode.name(definition.id(), i), item.attempts()));
                }
                moveItem(new ItemNode(definition.id(), i), NodeStatus.CANCELLED,
                        "item " + failedIndex + " failed", s -> s);
            }
        }
        move(definition.id(), NodeStatus.FAILED, "item " + failedIndex + " failed: " + error);
        nodes.compute(definition.id(), (id, n) -> n.withError("item " + failedIndex + " failed: " + error));
    }

    /** Starts pending items in order while fewer than the node's concurrency run. */
    private void dispatchItems(NodeDefinition definition) {
        NodeState node = nodes.get(definition.id());
        int bound = definition.maxConcurrency() == 0 ? node.items().size() : definition.maxConcurrency();
        int running = (int) node.items().stream().filter(i -> i.state() == NodeStatus.RUNNING).count();
        for (int i = 0; i < node.items().size() && running < bound; i++) {
            if (nodes.get(definition.id()).state() != NodeStatus.RUNNING) {
                return; // an item's input failed and took the node with it
            }
            NodeState pending = nodes.get(definition.id()).items().get(i);
            if (pending.state() == NodeStatus.PENDING) {
                ItemNode item = new ItemNode(definition.id(), i);
                int attempt = pending.attempts() + 1;
                moveItem(item, NodeStatus.RUNNING, "dispatched attempt " + attempt + " to '" + definition.handler() + "'",
                        s -> s.withAttempts(attempt));
                if (dispatchItem(definition, i, attempt, now)) {
                    running++;
                }
            }
        }
    }

    /** Dispatches one attempt of an item; false when its input could not be evaluated (the item and node failed). */
    private boolean dispatchItem(NodeDefinition definition, int index, int attempt, Instant availableAt) {
        JsonNode list = nodes.get(definition.id()).input();
        Evaluated input = evaluate(() -> definition.input() == null ? list.get(index)
                : definition.input().evaluate(bindings().forItem(list.get(index), index)));
        if (input.error() != null) {
            ItemNode item = new ItemNode(definition.id(), index);
            String error = "input: " + input.error();
            moveItem(item, NodeStatus.FAILED, error, s -> s.withError(error));
            failFanOut(definition, index, error);
            return false;
        }
        effects.add(new DispatchTask(ItemNode.name(definition.id(), index), attempt, definition.handler(),
                definition.pool(), input.value(), availableAt));
        return true;
    }

    // ---- signals and timers ----

    private void fireTimer(String node) {
        NodeState state = nodes.get(node);
        if (state == null || state.state() != NodeStatus.WAITING) {
            return; // a late or repeated timer: already handled
        }
        NodeDefinition definition = definitions.get(node);
        if (definition.type() == NodeType.TIMER) {
            move(node, NodeStatus.SUCCEEDED, "timer fired");
            nodes.compute(node, (id, n) -> n.withOutput(JSON.textNode(now.toString())));
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

    // ---- deciding pending nodes: triggers, conditions, starts ----

    private void decidePendingNodes() {
        boolean decided;
        do {
            decided = false;
            // A node that only starts waiting after another consumed a signal (it depends on it) needs a signal
            // of its own, so early signals are shared only among nodes starting in the same pass.
            deliveredThisPass.clear();
            for (NodeDefinition definition : definitions.values()) {
                if (nodes.get(definition.id()).state() == NodeStatus.PENDING && dependenciesDone(definition)) {
                    decide(definition);
                    decided = true;
                }
            }
        } while (decided);
    }

    private boolean dependenciesDone(NodeDefinition definition) {
        return definition.dependsOn().stream().allMatch(dep -> nodes.get(dep).state().isDone());
    }

    /** Its dependencies have finished: it runs, or is skipped (its trigger does not hold, its condition is false). */
    private void decide(NodeDefinition definition) {
        int succeeded = 0;
        int failed = 0;
        int skipped = 0;
        List<String> notSucceeded = new ArrayList<>();
        for (String dependency : definition.dependsOn()) {
            NodeState state = nodes.get(dependency);
            if (state.state() == NodeStatus.SUCCEEDED || state.byOperator()) {
                succeeded++;
            } else {
                notSucceeded.add("'" + dependency + "' " + state.state().name().toLowerCase());
                if (state.state() == NodeStatus.FAILED) {
                    failed++;
                } else {
                    skipped++;
                }
            }
        }
        RunIf runIf = definition.runIf();
        if (!runIf.holds(succeeded, failed, skipped)) {
            move(definition.id(), NodeStatus.SKIPPED, "skipped: runIf " + runIf.wireName() + " does not hold ("
                    + (notSucceeded.isEmpty() ? "no dependency failed" : String.join(", ", notSucceeded)) + ")");
            return;
        }
        if (definition.when() != null) {
            Evaluated when = evaluate(() -> JSON.booleanNode(definition.when().evaluateBoolean(bindings())));
            if (when.error() != null) {
                failBeforeStart(definition, "when: " + when.error());
                return;
            }
            if (!when.value().asBoolean()) {
                move(definition.id(), NodeStatus.SKIPPED, "skipped: when '" + definition.when().source() + "' is false");
                return;
            }
        }
        start(definition);
    }

    private void failBeforeStart(NodeDefinition definition, String error) {
        move(definition.id(), NodeStatus.FAILED, "not started: " + error);
        nodes.compute(definition.id(), (id, n) -> n.withError(error));
    }

    private void start(NodeDefinition definition) {
        switch (definition.type()) {
            case TASK -> {
                if (definition.isFanOut()) {
                    startFanOut(definition);
                    return;
                }
                Evaluated input = inputOf(definition);
                if (input.error() != null) {
                    failBeforeStart(definition, "input: " + input.error());
                    return;
                }
                int attempt = nodes.get(definition.id()).attempts() + 1; // after a reset, numbers go on
                move(definition.id(), NodeStatus.RUNNING, "dispatched attempt " + attempt + " to '" + definition.handler() + "'");
                nodes.compute(definition.id(), (id, n) -> n.withAttempts(attempt).withInput(input.kept()));
                effects.add(new DispatchTask(definition.id(), attempt, definition.handler(), definition.pool(), input.value(), now));
            }
            case WORKFLOW -> {
                Evaluated input = inputOf(definition);
                if (input.error() != null) {
                    failBeforeStart(definition, "input: " + input.error());
                    return;
                }
                int attempt = nodes.get(definition.id()).attempts() + 1;
                move(definition.id(), NodeStatus.RUNNING, "starting child run of '" + definition.workflow() + "', attempt " + attempt);
                nodes.compute(definition.id(), (id, n) -> n.withAttempts(attempt).withInput(input.kept()));
                effects.add(new Effect.StartChild(definition.id(), attempt, definition.workflow(), definition.revision(),
                        input.value()));
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

    private void startFanOut(NodeDefinition definition) {
        Evaluated list = evaluate(() -> {
            ArrayNode items = JSON.arrayNode();
            definition.forEach().evaluateList(bindings()).forEach(items::add);
            return items;
        });
        if (list.error() != null) {
            failBeforeStart(definition, "forEach: " + list.error());
            return;
        }
        int size = list.value().size();
        if (size > limits.maxFanOut()) {
            failBeforeStart(definition, "forEach gave " + size + " items, more than the " + limits.maxFanOut()
                    + " one fan-out may have (ductor.workflow.max-fan-out)");
            return;
        }
        if (size == 0) {
            move(definition.id(), NodeStatus.SUCCEEDED, "forEach gave no items");
            nodes.compute(definition.id(), (id, n) -> n.withInput(list.value()).withOutput(JSON.arrayNode()).withItems(List.of()));
            return;
        }
        List<NodeState> before = nodes.get(definition.id()).items(); // a reset's: their attempt numbers go on
        List<NodeState> items = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            items.add(before != null && i < before.size() ? before.get(i).reopened() : NodeState.pending());
        }
        int attempt = nodes.get(definition.id()).attempts() + 1;
        move(definition.id(), NodeStatus.RUNNING, "fanning out over " + size + " items"
                + (definition.maxConcurrency() == 0 ? "" : ", at most " + definition.maxConcurrency() + " at a time"));
        nodes.compute(definition.id(), (id, n) -> n.withAttempts(attempt).withInput(list.value()).withItems(items));
        dispatchItems(definition);
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

    // ---- the run's end ----

    /** No node can run any more: the run ends, FAILED when a node failed that was not allowed to. */
    private void endRunIfNothingCanRun() {
        if (nodes.values().stream().anyMatch(n -> n.state().isOpen())) {
            return;
        }
        Optional<String> failed = definitions.values().stream()
                .filter(d -> !d.allowFailure() && nodes.get(d.id()).state() == NodeStatus.FAILED)
                .map(NodeDefinition::id)
                .findFirst();
        if (failed.isPresent()) {
            end(RunStatus.FAILED, "node '" + failed.get() + "' failed");
            return;
        }
        Template template = run.definition().output();
        if (template == null) {
            output = outputs();
        } else {
            Evaluated evaluated = evaluate(() -> template.evaluate(bindings()));
            if (evaluated.error() != null) {
                end(RunStatus.FAILED, "output: " + evaluated.error());
                return;
            }
            output = evaluated.value();
        }
        end(RunStatus.SUCCEEDED, "no node can run any more");
    }

    private void end(RunStatus terminal, String cause) {
        status.checkMoveTo(terminal);
        record(null, status.name(), terminal.name(), cause);
        status = terminal;
        endedBecause = cause;
    }

    /** Ends the run at once (cancelled, force-failed) and closes every node that still owed it something. */
    private void finish(RunStatus terminal, String cause) {
        new ArrayList<>(nodes.keySet()).forEach(id -> {
            NodeState state = nodes.get(id);
            if (state.state().isOpen()) {
                if (definitions.get(id).type() == NodeType.WORKFLOW && state.state() == NodeStatus.RUNNING) {
                    effects.add(new Effect.CancelChild(id, state.attempts()));
                }
                move(id, NodeStatus.CANCELLED, "run " + terminal.name().toLowerCase());
                if (state.items() != null) {
                    List<NodeState> items = new ArrayList<>(state.items());
                    items.replaceAll(i -> i.state().isOpen() ? i.moveTo(NodeStatus.CANCELLED) : i);
                    nodes.compute(id, (k, n) -> n.withItems(items));
                }
            }
        });
        end(terminal, cause);
    }

    private void move(String node, NodeStatus next, String cause) {
        NodeState current = nodes.get(node);
        nodes.put(node, current.moveTo(next));
        record(node, current.state().name(), next.name(), cause);
    }

    private void record(String node, String from, String to, String cause) {
        transitions.add(new Transition(++seq, node, from, to, cause));
    }

    // ---- expressions ----

    /** A value an expression gave, or why it could not; {@code kept} is what the node state keeps of it. */
    private record Evaluated(JsonNode value, JsonNode kept, String error) {
    }

    private static Evaluated evaluate(Supplier<JsonNode> expression) {
        try {
            JsonNode value = expression.get();
            return new Evaluated(value, value, null);
        } catch (RuntimeException failed) { // EvaluationException, or anything a conversion let through: never the tick's
            return new Evaluated(null, null, failed.getMessage() == null ? failed.toString() : failed.getMessage());
        }
    }

    /**
     * A task's or child's input: its template evaluated (kept in the node state, so a retry gets the same and a
     * reader sees it), the static input as written (not kept: the definition says it), or the run's input.
     */
    private Evaluated inputOf(NodeDefinition definition) {
        Template template = definition.input();
        if (template == null) {
            return new Evaluated(run.input(), null, null);
        }
        if (template.isStatic()) {
            return new Evaluated(template.source(), null, null);
        }
        return evaluate(() -> template.evaluate(bindings()));
    }

    private Bindings bindings() {
        return new Bindings(run.input(), id -> {
            NodeState state = nodes.get(id);
            return state == null ? null : new NodeFacts(state.state().name(), state.output(), state.error(), state.attempts());
        }, new RunFacts(String.valueOf(run.runId()), run.definition().name(), run.revision()), null, -1);
    }

    /**
     * A retry or an operator's retry, with the input the first attempt was given. A child run is started again at once:
     * a retry policy's backoff applies to tasks.
     */
    private Effect dispatch(NodeDefinition definition, int attempt, Instant availableAt) {
        NodeState state = nodes.get(definition.id());
        JsonNode input;
        if (state.input() != null) {
            input = state.input();
        } else if (definition.input() != null) {
            input = definition.input().source();
        } else {
            input = run.input();
        }
        if (definition.type() == NodeType.WORKFLOW) {
            return new Effect.StartChild(definition.id(), attempt, definition.workflow(), definition.revision(), input);
        }
        return new DispatchTask(definition.id(), attempt, definition.handler(), definition.pool(), input, availableAt);
    }

    private JsonNode outputs() {
        ObjectNode outputs = JSON.objectNode();
        nodes.forEach((id, state) -> {
            if (state.output() != null) {
                outputs.set(id, state.output());
            }
        });
        return outputs;
    }
}
