package dev.ductor.run.commit;

import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.run.LocalSteps;
import dev.ductor.run.StepReport;
import dev.ductor.run.command.RunOperations;
import dev.ductor.run.coordinator.Coordinator;
import dev.ductor.support.Fixtures;
import dev.ductor.support.FixedSlots;
import dev.ductor.support.LockHolder;
import dev.ductor.support.ManualCoordination;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The stuck run of the chaos trial (ChaosIT, seed 1796178110405: run chaos-358 WAITING for its signal, the signal
 * unconsumed in the inbox, no wakeup left), ordered deterministically: a group commit reads the run and its inbox;
 * a signal is accepted (inbox row and wakeup, committed); a coordinator ticks that wakeup on the row as committed, where
 * the signal node is not waiting yet, so the tick is a no-op that keeps the signal in the inbox and acks the wakeup;
 * then the group commit's versioned UPDATE still matches (nobody bumped the version) and moves the node to WAITING
 * without having seen the signal. Nothing will ever tick the run again (until a signal timeout, if it has one).
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class SignalDuringGroupCommitTest {

    private static final String TENANT = "signal-race";

    @Inject
    Fixtures fixtures;

    @Inject
    GroupCommit groupCommit;

    @Inject
    RunOperations operations;

    @Inject
    Coordinator coordinator;

    @Inject
    QueueRepository queue;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    Clock clock;

    @Test
    void aSignalAcceptedWhileAGroupCommitAdvancesTheRunIsStillDelivered() throws Exception {
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"prep\",\"type\":\"task\",\"handler\":\"noop\"},"
                + "{\"id\":\"approve\",\"type\":\"signal\",\"signal\":\"approve\",\"dependsOn\":[\"prep\"]}]}");
        UUID runId = fixtures.start(TENANT, workflow);
        QueueItem prep = fixtures.claimTasks(runId, Set.of("noop")).get(0);
        StepReport completed = StepReport.completed(prep.id(), prep.leaseToken(), runId, prep.nodeId(), prep.attempt(), TENANT,
                prep.tier(), null);

        try (Connection holder = dataSource.getConnection()) {
            // Holds the run row as a writer would (not its key: the signal's inbox INSERT still gets its FK lock), so
            // the group commit, having read the run and its inbox, waits at its UPDATE.
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement("SELECT 1 FROM eec_workflow_run WHERE run_id = ? FOR NO KEY UPDATE")) {
                lock.setObject(1, runId);
                lock.executeQuery().close();
            }
            CompletableFuture<GroupCommit.Outcome> commit = CompletableFuture.supplyAsync(
                    () -> groupCommit.apply(List.of(completed), LocalSteps.NONE));
            LockHolder.awaitSomeoneBlocked(dataSource);

            operations.signal(TENANT, runId, "approve", fixtures.json("{}"), "approve-1");
            // The coordinator's tick reads the run as committed (prep still running): a no-op. Before it may ack the
            // signal's wakeup it must find the run unchanged, so it queues behind the group commit's write.
            CompletableFuture<Void> tick = CompletableFuture.runAsync(() -> tickWhatIsDue(runId));
            LockHolder.awaitBlocked(dataSource, 2);

            holder.commit();
            assertEquals(1, commit.get(30, TimeUnit.SECONDS).committed(), "the group commit's write landed");
            tick.get(30, TimeUnit.SECONDS);
        }
        tickWhatIsDue(runId);
        // A lost first attempt is retried beside the batch (TickRetries.retryBesideBatch), so the delivery may land just after.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL", runId) > 0
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
            tickWhatIsDue(runId);
        }

        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL", runId),
                "the accepted signal is stranded in the inbox; wakeups queued for the run: "
                        + fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'WAKEUP'", runId));
        assertEquals("SUCCEEDED", fixtures.status(runId));
    }

    /**
     * The same race with the coordinator finishing first (finding 1 of the review at 8269a5d): the group commit has read
     * the run and its inbox and waits before its UPDATE, behind a reader that holds the row FOR SHARE; a signal is
     * accepted; the coordinator ticks its wakeup on the row as committed, where the signal node is not waiting yet, so
     * the signal stays buffered, and it finds the run unchanged under its own share lock (compatible with the reader's)
     * and acks the wakeup. Only then does the group commit's UPDATE run. Unless the coordinator's decision to ack while
     * leaving the signal buffered is covered by the run's version, that UPDATE still matches and the signal is
     * stranded.
     */
    @Test
    void aSignalBufferedByATickThatFinishesBeforeTheGroupCommitWritesIsStillDelivered() throws Exception {
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"prep\",\"type\":\"task\",\"handler\":\"noop\"},"
                + "{\"id\":\"approve\",\"type\":\"signal\",\"signal\":\"approve\",\"dependsOn\":[\"prep\"]}]}");
        UUID runId = fixtures.start(TENANT, workflow);
        QueueItem prep = fixtures.claimTasks(runId, Set.of("noop")).get(0);
        StepReport completed = StepReport.completed(prep.id(), prep.leaseToken(), runId, prep.nodeId(), prep.attempt(), TENANT,
                prep.tier(), null);

        CompletableFuture<Void> tick;
        try (Connection reader = dataSource.getConnection()) {
            reader.setAutoCommit(false);
            try (PreparedStatement share = reader.prepareStatement("SELECT 1 FROM eec_workflow_run WHERE run_id = ? FOR SHARE")) {
                share.setObject(1, runId);
                share.executeQuery().close();
            }
            CompletableFuture<GroupCommit.Outcome> commit = CompletableFuture.supplyAsync(
                    () -> groupCommit.apply(List.of(completed), LocalSteps.NONE));
            LockHolder.awaitSomeoneBlocked(dataSource);

            operations.signal(TENANT, runId, "approve", fixtures.json("{}"), "approve-1");
            tick = CompletableFuture.runAsync(() -> tickWhatIsDue(runId));
            // The tick either finishes (it acked on the version the group commit is about to overwrite) or, covered by
            // the version, waits for the reader like the group commit does.
            LockHolder.awaitDoneOrBlocked(dataSource, tick, 2);

            reader.commit();
            commit.get(30, TimeUnit.SECONDS);
            tick.get(30, TimeUnit.SECONDS);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        do {
            tickWhatIsDue(runId);
            Thread.sleep(20);
        } while (!"SUCCEEDED".equals(fixtures.status(runId)) && System.nanoTime() < deadline);

        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL", runId),
                "the accepted signal is stranded in the inbox; wakeups queued for the run: "
                        + fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'WAKEUP'", runId));
        assertEquals("SUCCEEDED", fixtures.status(runId));
    }

    /** Claims and processes the run's due wakeups and timers, as a coordinator pod would, until none is left. */
    private void tickWhatIsDue(UUID runId) {
        for (int round = 0; round < 10; round++) {
            List<QueueItem> claimed = QuarkusTransaction.requiringNew().call(() -> queue.claim(
                    List.of(QueueKind.WAKEUP, QueueKind.TIMER), "test", 100, Duration.ofSeconds(30), clock.instant()))
                    .stream().filter(item -> item.runId().equals(runId)).toList();
            if (claimed.isEmpty()) {
                return;
            }
            coordinator.process(runId, claimed).toCompletableFuture().join(); // its retries included
        }
    }
}
