package dev.ductor.run.command;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.DuctorConfig;
import dev.ductor.error.IdempotencyKeyReusedException;
import dev.ductor.error.LimitReachedException;
import dev.ductor.error.UndeclaredSignalException;
import dev.ductor.error.VersionConflictException;
import dev.ductor.metrics.DuctorMetrics;
import dev.ductor.run.InboxKind;
import dev.ductor.run.LoadedRun;
import dev.ductor.run.RunInbox;
import dev.ductor.run.RunLoader;
import dev.ductor.run.RunConflictException;
import dev.ductor.run.commit.RunCommitter;
import dev.ductor.run.core.Input;
import dev.ductor.run.core.RequestFingerprint;
import dev.ductor.run.core.TickResult;
import dev.ductor.run.read.RunQueries;
import dev.ductor.run.read.RunView;
import dev.ductor.workflow.WorkflowService;
import dev.ductor.run.core.NodeStatus;
import dev.ductor.run.core.Tick;
import dev.ductor.run.core.TickLimits;
import java.util.LinkedHashSet;
import java.util.Set;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Commands on a run from outside: signals and cancellation go to its inbox for the next tick; an operator's
 * PATCH is applied at once, as a tick of its own, and only if the run is still at the version the operator
 * saw (If-Match), checked first against the row and then again by the versioned UPDATE.
 */
@ApplicationScoped
public class RunOperations {

    private final EntityManager em;
    private final RunQueries queries;
    private final RunCommitter committer;
    private final RunInbox inbox;
    private final DuctorMetrics metrics;
    private final Clock clock;
    private final WorkflowService workflows;
    private final DuctorConfig.Limits limits;
    private final RunLoader loader;
    private final int maxFanOut;

    @Inject
    /** Within this many of the pending-signal bound, signals to a run are counted and added under its lock. */
    static final int SIGNAL_BOUND_MARGIN = 256;

    public RunOperations(EntityManager em, RunQueries queries, RunCommitter committer, RunInbox inbox,
                         DuctorMetrics metrics, Clock clock, WorkflowService workflows,
                         DuctorConfig config, RunLoader loader) {
        this.loader = loader;
        this.maxFanOut = config.workflow().maxFanOut();
        this.workflows = workflows;
        this.limits = config.limits();
        this.em = em;
        this.queries = queries;
        this.committer = committer;
        this.inbox = inbox;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * True when the signal is new, false for a repeat of an idempotency key already delivered. A signal that no node of
     * the run's revision declares is refused ({@link UndeclaredSignalException}), naming the ones it does.
     */
    @Transactional
    public boolean signal(String tenant, UUID runId, String name, JsonNode payload, String idempotencyKey) {
        RunQueries.RunHeader run = queries.header(tenant, runId);
        SignalOutcome outcome = deliverSignal(run, name, payload, idempotencyKey);
        if (outcome == SignalOutcome.NOT_RUNNING) {
            throw new RunTerminalException(runId, run.status(), "the signal '" + name + "'");
        }
        if (outcome == SignalOutcome.UNDECLARED) {
            throw undeclared(run, name);
        }
        return outcome == SignalOutcome.ACCEPTED;
    }

    /** What became of a signal offered with {@link #signalIfRunning}. */
    public enum SignalOutcome { ACCEPTED, DUPLICATE, NOT_RUNNING, UNDECLARED }

    /** The signals the run's revision declares, for saying why one was {@link SignalOutcome#UNDECLARED}. */
    @Transactional
    public UndeclaredSignalException undeclared(String tenant, UUID runId, String name) {
        return undeclared(queries.header(tenant, runId), name);
    }

    private UndeclaredSignalException undeclared(RunQueries.RunHeader run, String name) {
        return new UndeclaredSignalException(run.runId(), name, run.workflowName(), run.workflowRevision(), declaredSignals(run));
    }

    private List<String> declaredSignals(RunQueries.RunHeader run) {
        return workflows.revision(run.tenant(), run.workflowName(), run.workflowRevision()).declaredSignals();
    }

    /**
     * As {@link #signal}, for callers that signal runs inside a transaction of their own (event rules): a run
     * that has finished is reported as {@link SignalOutcome#NOT_RUNNING}, a signal its revision does not declare as
     * {@link SignalOutcome#UNDECLARED}, instead of thrown, because an exception leaving this method would mark the
     * caller's whole transaction for rollback.
     */
    @Transactional
    public SignalOutcome signalIfRunning(String tenant, UUID runId, String name, JsonNode payload, String idempotencyKey) {
        return deliverSignal(queries.header(tenant, runId), name, payload, idempotencyKey);
    }

    private SignalOutcome deliverSignal(RunQueries.RunHeader run, String name, JsonNode payload, String idempotencyKey) {
        UUID runId = run.runId();
        JsonNode signal = queries.json().mapper().createObjectNode().put("name", name).set("payload", payload);
        if (!"RUNNING".equals(run.status())) {
            if (inbox.contains(runId, "signal:" + idempotencyKey)) {
                requireSameSignal(runId, idempotencyKey, signal);
                metrics.signal("duplicate"); // delivered before the run finished: a repeat is still just a repeat
                return SignalOutcome.DUPLICATE;
            }
            metrics.signal("rejected");
            return SignalOutcome.NOT_RUNNING;
        }
        if (!declaredSignals(run).contains(name)) {
            metrics.signal("rejected");
            return SignalOutcome.UNDECLARED;
        }
        int bound = limits.pendingSignalsPerRun();
        int pending = inbox.pending(runId, InboxKind.SIGNAL, bound);
        if (pending >= bound - SIGNAL_BOUND_MARGIN) {
            // Near the bound, senders count and add one at a time: else concurrent ones each see room for one more
            // and together pass it (the hostile trial saw 1001 of 1000 kept).
            inbox.lockForCount(runId);
            pending = inbox.pending(runId, InboxKind.SIGNAL, bound);
        }
        if (pending >= bound && !inbox.contains(runId, "signal:" + idempotencyKey)) {
            metrics.signal("rejected");
            throw new LimitReachedException("pending-signals", "ductor.limits.pending-signals-per-run", bound,
                    "Run " + runId + " already has " + bound + " signals waiting to be applied.");
        }
        Instant now = clock.instant();
        boolean fresh = inbox.deliverAndWake(RunInbox.Delivery.signal(runId, run.tenant(), run.tier(), idempotencyKey,
                signal.toString()), now);
        if (!fresh) {
            requireSameSignal(runId, idempotencyKey, signal);
        }
        metrics.signal(fresh ? "accepted" : "duplicate");
        return fresh ? SignalOutcome.ACCEPTED : SignalOutcome.DUPLICATE;
    }

    /**
     * A repeated signal key must carry the signal it was first delivered with: the inbox row under the key holds
     * that signal's name and payload, so it is compared with them (as canonical JSON) rather than with a stored hash.
     */
    private void requireSameSignal(UUID runId, String idempotencyKey, JsonNode signal) {
        List<?> stored = em.createNativeQuery("SELECT CAST(payload AS text) FROM eec_run_inbox WHERE run_id = ?1 AND dedup_key = ?2")
                .setParameter(1, runId)
                .setParameter(2, "signal:" + idempotencyKey)
                .getResultList();
        if (!stored.isEmpty() && !RequestFingerprint.of(queries.json().tree((String) stored.get(0))).equals(RequestFingerprint.of(signal))) {
            metrics.signal("rejected");
            throw new IdempotencyKeyReusedException(idempotencyKey, "a signal to run " + runId);
        }
    }

    @Transactional
    public void cancel(String tenant, UUID runId, String reason) {
        RunQueries.RunHeader run = queries.header(tenant, runId);
        if (!"RUNNING".equals(run.status())) {
            throw new RunTerminalException(runId, run.status(), "the cancellation");
        }
        Instant now = clock.instant();
        String body = queries.json().mapper().createObjectNode().put("reason", reason).toString();
        inbox.deliverAndWake(RunInbox.Delivery.cancel(runId, run.tenant(), run.tier(), body), now);
    }

    /**
     * Decided on the state the change meets: the run as it is once its pending inbox is applied, since every tick
     * applies the inbox first. When the change does not apply to that state (the run finishes on those results, or
     * a node is no longer where its action applies) it is refused with a 409, never answered 200 without effect;
     * the pending results are committed all the same (the coordinator would do it next), so that {@code current}
     * in the answer is what a GET then shows. Hence no rollback for {@link PatchRefusedException}.
     */
    @Transactional(dontRollbackOn = PatchRefusedException.class)
    public RunView patch(String tenant, UUID runId, OptionalLong ifMatch, RunPatch patch, JsonNode rejected) {
        // The run's view is read only once nothing more is written (queries.view): the write is by statement.
        RunQueries.RunHeader run = queries.header(tenant, runId);
        VersionConflictException.requireVersion("Run " + runId, ifMatch, run.version(), () -> queries.view(tenant, runId), rejected);
        if (!"RUNNING".equals(run.status())) {
            throw PatchRefusedException.runTerminal(runId, run.status(), false, queries.view(tenant, runId), rejected);
        }
        List<Input> actions = new ArrayList<>();
        patch.nodes().forEach((node, action) -> actions.add(new Input.OperatorAction(0, node, action)));
        RunCommitter.Ticked ticked = committer.tick(runId, RunCommitter.Command.operator(actions, patch.tier(), run.version()),
                clock.instant());
        if (ticked.refused() != null) {
            TickResult met = ticked.committed();
            throw met.status().isTerminal()
                    ? PatchRefusedException.runTerminal(runId, met.status().name(), true, queries.view(tenant, runId), rejected)
                    : PatchRefusedException.nodeAction(ticked.refused().refusedActions(), queries.view(tenant, runId), rejected);
        }
        return queries.view(tenant, runId);
    }

    /**
     * Reopens a finished run from some of its nodes, as one versioned commit through the tick ({@link Tick#reset}):
     * checked against the version the operator saw (If-Match), then written by the versioned UPDATE, so a run that
     * changed meanwhile is a 409, never overwritten. {@code by} is who asked, for the history.
     */
    @Transactional
    public RunView reset(String tenant, UUID runId, OptionalLong ifMatch, RunReset reset, String by, JsonNode rejected) {
        RunQueries.RunHeader run = queries.header(tenant, runId);
        VersionConflictException.requireVersion("Run " + runId, ifMatch, run.version(), () -> queries.view(tenant, runId), rejected);
        if ("RUNNING".equals(run.status())) {
            throw PatchRefusedException.reset(runId, "run-running", "Run " + runId + " is still RUNNING; a reset reopens a"
                    + " finished run (retry or skip its nodes with PATCH instead).", queries.view(tenant, runId), rejected);
        }
        if ("SUCCEEDED".equals(run.status()) && !reset.reopenSucceeded()) {
            throw PatchRefusedException.reset(runId, "run-succeeded", "Run " + runId + " SUCCEEDED; to run it again from"
                    + " some of its nodes, say so with \"reopenSucceeded\": true.", queries.view(tenant, runId), rejected);
        }
        LoadedRun loaded = loader.load(runId).orElseThrow();
        if (loaded.row().version() != run.version()) { // changed since the check: as the versioned UPDATE would say
            throw new RunConflictException(runId, run.version(), loaded.row().version(), loaded.row().lastSeq());
        }
        WorkflowService.Pinned target = reset.toCurrentRevision()
                ? workflows.current(tenant, run.workflowName())
                : new WorkflowService.Pinned(run.workflowRevision(), loaded.snapshot().definition());
        Set<String> from = new LinkedHashSet<>();
        if (reset.failedOnly()) {
            loaded.snapshot().nodes().forEach((id, node) -> {
                if (node.state() == NodeStatus.FAILED || node.state() == NodeStatus.CANCELLED) {
                    from.add(id);
                }
            });
        }
        from.addAll(reset.fromNodes());
        List<String> unknown = from.stream().filter(id -> target.definition().node(id).isEmpty()).toList();
        if (!unknown.isEmpty()) {
            throw PatchRefusedException.reset(runId, "unknown-nodes", "Revision " + target.revision() + " of workflow '"
                    + run.workflowName() + "' has no node " + String.join(", ", unknown) + ".", queries.view(tenant, runId), rejected);
        }
        if (from.isEmpty()) {
            throw PatchRefusedException.reset(runId, "nothing-to-reset", "Run " + runId + " has no node to reset: name"
                    + " them in fromNodes, or use failedOnly on a run with failed or cancelled nodes.", queries.view(tenant, runId), rejected);
        }
        Instant now = clock.instant();
        TickResult result = Tick.reset(loaded.snapshot(), target.definition(), target.revision(), from,
                "reset by " + by + " from " + String.join(", ", from), now, new TickLimits(maxFanOut));
        committer.commit(loaded, result, loaded.row().tier(), target.revision(), now);
        return queries.view(tenant, runId);
    }
}
