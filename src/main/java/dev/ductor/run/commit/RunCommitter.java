package dev.ductor.run.commit;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.JsonCodec;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.QueueSignal;
import dev.ductor.run.LoadedRun;
import dev.ductor.run.NodeStatesCodec;
import dev.ductor.run.RunConflictException;
import dev.ductor.run.RunHistory;
import dev.ductor.run.RunInbox;
import dev.ductor.run.RunLoader;
import dev.ductor.run.RunOutbox;
import dev.ductor.run.RunRows;
import dev.ductor.run.WorkflowRunEntity;
import dev.ductor.run.core.Effect;
import dev.ductor.run.core.Input;
import dev.ductor.run.core.StateChecksum;
import dev.ductor.run.core.Tick;
import dev.ductor.run.core.TickLimits;
import dev.ductor.run.core.TickResult;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The one load, tick, commit shell, for every command that changes a run that exists (a coordinator's tick, an
 * operator's PATCH), in the caller's transaction: {@link #tick} loads the run (checksum verified) with its pending
 * inbox, ticks it on that inbox followed by the command's own inputs, and commits the result: first the run row
 * through the versioned UPDATE ({@link RunRows#write}: the group commit's statement, for a batch of one, so a lost race
 * fails, as {@link RunConflictException}, before anything else is written), then the history rows, the outbox (queue rows for every effect, and the
 * superseded attempts of an operator's retry or skip taken off the queue) and the consumed inbox rows. Nothing leaves
 * the database before the commit, so a losing tick leaves no trace and a crash after the commit loses nothing.
 *
 * <p>What differs between commands is a {@link Command}. What a lost race becomes is the caller's: the coordinator
 * retries the whole shell, each try in a new transaction ({@link TickRetries}, which also meters each try, since its
 * outcome is known only once the transaction ends); the API answers 409. New runs are inserted, not loaded:
 * {@link RunStarter} ticks them fresh and writes them in batches, sealed by {@link #checksum} and dispatched through
 * the same {@link RunOutbox}; many runs' step results are {@link GroupCommit}'s.
 */
@ApplicationScoped
public class RunCommitter {

    /**
     * What differs between the commands that tick a run.
     *
     * @param after        inputs applied after the run's pending inbox: a coordinator's carried step results, an
     *                     operator's node actions
     * @param acting       the caller acts on the outcome even when the tick changes nothing (it acknowledges wakeups)
     * @param allOrNothing an operator's change: refused as a whole when the run finishes on its pending inbox or the
     *                     tick refuses one of its actions (the pending inbox alone is committed then, as the
     *                     coordinator would next); when it changes nothing the row is still resealed
     * @param tier         the run's new tier, written with the tick, or null
     * @param seenVersion  the version the command was decided on (an operator's If-Match), or null: a run loaded at
     *                     another version is a lost race, as if the versioned UPDATE had matched no row
     */
    public record Command(List<Input> after, boolean acting, boolean allOrNothing, String tier, Long seenVersion) {

        /** A coordinator's tick: the results it carries; {@code acking} when it acknowledges wakeups on the outcome. */
        public static Command coordinator(List<Input> carried, boolean acking) {
            return new Command(carried, acking, false, null, null);
        }

        /** An operator's change: node actions and a new tier (null: unchanged). */
        public static Command operator(List<Input> actions, String tier) {
            return new Command(actions, false, true, tier, null);
        }

        /** An operator's change decided on the run at {@code version}. */
        public static Command operator(List<Input> actions, String tier, long version) {
            return new Command(actions, false, true, tier, version);
        }
    }

    /**
     * What the shell committed: the tick (null when the run is gone or finished: nothing was ticked), and, when an
     * all-or-nothing command was refused, the tick it was refused on (its {@code refusedActions} say why), else null.
     */
    public record Ticked(TickResult committed, TickResult refused) {
    }

    @Inject NodeStatesCodec codec;
    @Inject QueueRepository queue;
    @Inject RunInbox inbox;
    @Inject JsonCodec json;
    @Inject QueueSignal signal;
    @Inject RunHistory history;
    @Inject RunOutbox outbox;
    @Inject RunRows rows;
    @Inject RunLoader loader;
    @Inject ChildRuns children;
    @Inject DuctorConfig config;
    private TickLimits limits;

    @PostConstruct
    void readLimits() {
        limits = new TickLimits(config.workflow().maxFanOut());
    }

    /** Load, tick and commit one run for {@code command}, in the caller's transaction. */
    public Ticked tick(UUID runId, Command command, Instant now) {
        Optional<LoadedRun> found = loader.load(runId);
        if (found.isEmpty()) {
            return new Ticked(null, null);
        }
        LoadedRun loaded = found.get();
        RunRows.Row run = loaded.row();
        if (command.seenVersion() != null && command.seenVersion() != run.version()) {
            throw new RunConflictException(runId, command.seenVersion(), run.version(), run.lastSeq());
        }
        if (loaded.snapshot().status().isTerminal()) {
            inbox.drain(runId, now);
            return new Ticked(null, null);
        }
        List<Input> inputs = new ArrayList<>(loaded.inbox());
        inputs.addAll(command.after());
        TickResult result = Tick.tick(loaded.snapshot(), inputs, now, limits);
        TickResult refused = null;
        if (command.allOrNothing()) {
            TickResult met = Tick.tick(loaded.snapshot(), loaded.inbox(), now, limits); // the state the change meets
            if (met.status().isTerminal() || !result.refusedActions().isEmpty()) {
                refused = result;
                result = met;
            }
        }
        boolean retier = refused == null && command.tier() != null && !command.tier().equals(run.tier());
        String tier = retier ? command.tier() : run.tier();
        if (!result.isNoop()) {
            commit(loaded, result, tier, run.revision(), now);
        } else if (refused == null && command.allOrNothing()) {
            if (retier) { // a new tier alone, under a new seal (the checksum covers the tier)
                rows.write(new RunRows.Write(run.runId(), run.version(), run.status(), tier, run.revision(),
                        run.nodeStates(), checksum(tier, result), run.lastSeq(), run.output()), now);
            }
        } else if (refused == null && command.acting() && leavesBuffered(loaded.inbox(), result)) {
            // Acking the wakeups while inputs stay pending is a decision on the row and the inbox together: the version
            // must cover it. A writer that read the run before those inputs arrived and has not written yet would
            // otherwise still match its version, commit a state that waits for them without having seen them, and
            // leave no wakeup behind. Bumped, that writer loses its race and re-reads.
            rows.write(RunRows.Write.unchanged(run), now);
        } else if (refused == null && (command.acting() || !result.discardedInputs().isEmpty())) {
            confirmUnchanged(loaded);
        }
        inbox.markConsumed(result.discardedInputs(), now);
        if (retier) {
            queue.retier(runId, tier);
        }
        return new Ticked(result, refused);
    }

    /** Writes a tick's result on a loaded run: the row by the versioned UPDATE, then its history, outbox and inbox. */
    public void commit(LoadedRun loaded, TickResult result, Instant now) {
        commit(loaded, result, loaded.row().tier(), loaded.row().revision(), now);
    }

    /** As {@link #commit(LoadedRun, TickResult, Instant)}, with the run's tier and revision from now on. */
    public void commit(LoadedRun loaded, TickResult result, String tier, int revision, Instant now) {
        RunRows.Row run = loaded.row();
        UUID runId = run.runId();
        rows.write(new RunRows.Write(runId, run.version(), result.status().name(), tier, revision,
                codec.write(result.nodes()), checksum(tier, result), result.lastSeq(), json.write(result.output())), now);
        history.append(runId, result.transitions(), now);
        if (result.status().isTerminal()) {
            queue.deleteForRun(runId);
        } else {
            for (Effect effect : result.effects()) {
                if (effect instanceof Effect.SupersedeTasks superseded) {
                    queue.supersedeTasks(runId, superseded.node(), superseded.throughAttempt());
                }
            }
            outbox.write(outbox.items(runId, run.tenant(), tier, result.effects(), now), now);
        }
        children.apply(runId, run.tenant(), tier, result.effects(), now);
        if (result.status().isTerminal() && run.parent() != null) {
            children.ended(run.parent(), run.tenant(), tier, runId, run.workflowName(), result, now);
        }
        inbox.markConsumed(result.consumedInputs(), now);
    }

    /**
     * A tick that changes nothing still decides something: that its wakeups may be acked and its discarded inputs
     * dropped. That decision was made on the loaded version, so it holds only if the run is still there, checked under
     * a share lock: a writer that has updated the row but not yet committed (a group commit that read the run before
     * a signal arrived) is waited for, and then this is a lost race like any other. Without it, the no-op acked the
     * signal's wakeup on the old state, the writer committed a state that waits for the signal, and nothing ever
     * ticked the run again (the lost wakeup found by the chaos trial).
     */
    private void confirmUnchanged(LoadedRun loaded) {
        RunRows.Row run = loaded.row();
        Long current = rows.versionShared(run.runId());
        if (current == null || current != run.version()) {
            throw new RunConflictException(run.runId(), run.version(), current, null);
        }
    }

    /** Whether the tick leaves some of the pending inbox pending: neither consumed nor discarded (a buffered signal). */
    private static boolean leavesBuffered(List<Input> inbox, TickResult result) {
        return inbox.stream().anyMatch(input -> input.id() != 0 && !result.consumedInputs().contains(input.id())
                && !result.discardedInputs().contains(input.id()));
    }

    /** The seal of a tick's new state on a run of {@code tier}: every writer of a run row computes it here. */
    static String checksum(String tier, TickResult result) {
        return StateChecksum.of(new StateChecksum.Covered(result.status().name(), result.lastSeq(), tier, result.output(),
                result.nodes()));
    }

    /** Wakes this JVM's coordinator loops when the current transaction commits (a wakeup was queued outside a tick). */
    public void nudgeAfterCommit() {
        signal.afterCommit(QueueSignal.Channel.COORDINATORS);
    }
}
