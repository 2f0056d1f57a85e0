package dev.ductor.run;

import dev.ductor.config.JsonCodec;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.QueueSignal;
import dev.ductor.run.core.Effect;
import dev.ductor.run.core.StateChecksum;
import dev.ductor.run.core.TickResult;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.UUID;

/**
 * Writes a tick's result in the caller's transaction: first the run row through Hibernate's versioned
 * UPDATE ({@link RunRows#write}, so a lost race fails before anything else is written), then the history rows, the outbox
 * (queue rows for every effect, and the superseded attempts of an operator's retry or skip taken off the queue)
 * and the consumed inbox rows. Nothing leaves the database before the
 * commit, so a losing tick leaves no trace and a crash after the commit loses nothing.
 */
@ApplicationScoped
public class RunCommitter {

    private final EntityManager em;
    private final NodeStatesCodec codec;
    private final QueueRepository queue;
    private final RunInbox inbox;
    private final JsonCodec json;
    private final QueueSignal signal;
    private final RunHistory history;
    private final RunOutbox outbox;
    private final RunRows rows;

    @Inject
    public RunCommitter(EntityManager em, NodeStatesCodec codec, QueueRepository queue, RunInbox inbox, JsonCodec json,
                        QueueSignal signal, RunHistory history, RunOutbox outbox, RunRows rows) {
        this.rows = rows;
        this.signal = signal;
        this.history = history;
        this.outbox = outbox;
        this.em = em;
        this.codec = codec;
        this.queue = queue;
        this.inbox = inbox;
        this.json = json;
    }

    public void commit(LoadedRun loaded, TickResult result, Instant now) {
        WorkflowRunEntity run = loaded.entity();
        rows.write(run, result.status().name(), codec.write(result.nodes()), result.lastSeq(), json.write(result.output()),
                checksum(run.tier, result), now);
        writeConsequences(run.runId, run.tenant, run.tier, result, now);
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
    public void confirmUnchanged(LoadedRun loaded) {
        WorkflowRunEntity run = loaded.entity();
        Long current = em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT db_record_version FROM eec_workflow_run WHERE run_id = ? FOR SHARE")) {
                statement.setObject(1, run.runId);
                try (ResultSet rs = statement.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : null;
                }
            }
        });
        if (current == null || current != run.dbRecordVersion) {
            throw new RunConflictException(run.runId, run.dbRecordVersion, current, null);
        }
    }

    /** The seal of a tick's new state on a run of {@code tier}: every writer of a run row computes it here. */
    static String checksum(String tier, TickResult result) {
        return StateChecksum.of(new StateChecksum.Covered(result.status().name(), result.lastSeq(), tier, result.output(),
                result.nodes()));
    }

    /** History and outbox rows of a tick; also used when a run is created with its first tick applied. */
    void writeConsequences(UUID runId, String tenant, String tier, TickResult result, Instant now) {
        history.append(runId, result.transitions(), now);
        if (result.status().isTerminal()) {
            queue.deleteForRun(runId);
            return;
        }
        for (Effect effect : result.effects()) {
            if (effect instanceof Effect.SupersedeTasks superseded) {
                queue.supersedeTasks(runId, superseded.node(), superseded.throughAttempt());
            }
        }
        outbox.write(outbox.items(runId, tenant, tier, result.effects()), now);
    }

    /** Wakes this JVM's coordinator loops when the current transaction commits (a wakeup was queued outside a tick). */
    public void nudgeAfterCommit() {
        signal.afterCommit(QueueSignal.Channel.COORDINATORS);
    }
}
