package dev.ductor.run.commit;

import dev.ductor.queue.QueueItem;
import dev.ductor.run.CorruptRunStateException;
import dev.ductor.run.LoadedRun;
import dev.ductor.run.LocalSteps;
import dev.ductor.run.RunConflictException;
import dev.ductor.run.RunLoader;
import dev.ductor.run.RunRows;
import dev.ductor.run.StepReport;
import dev.ductor.run.core.Tick;
import dev.ductor.support.FixedSlots;
import dev.ductor.support.Fixtures;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The group commit on real PostgreSQL: many runs' step results in one transaction, each run behind its own
 * versioned UPDATE, a lost race costing only that run's part (which then goes through its inbox), and the native
 * UPDATE losing exactly the races the entity's {@code @Version} loses.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class GroupCommitTest {

    private static final String TENANT = "group";

    @Inject
    Fixtures fixtures;

    @Inject
    GroupCommit groupCommit;

    @Inject
    RunLoader loader;

    @Inject
    RunCommitter committer;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    Clock clock;

    @Inject
    io.micrometer.core.instrument.MeterRegistry meters;

    private record Claimed(UUID runId, QueueItem task) {
        StepReport completed() {
            return StepReport.completed(task.id(), task.leaseToken(), runId, task.nodeId(), task.attempt(), task.tenant(),
                    task.tier(), null);
        }
    }

    private List<Claimed> startedChains(int count) {
        String workflow = fixtures.chain(TENANT, 3, "noop");
        List<Claimed> claimed = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            UUID runId = fixtures.start(TENANT, workflow);
            List<QueueItem> tasks = fixtures.claimTasks(runId, Set.of("noop"));
            assertEquals(1, tasks.size());
            claimed.add(new Claimed(runId, tasks.get(0)));
        }
        return claimed;
    }

    @Test
    void aBatchOfResultsAdvancesEveryRunOnceWithoutInboxOrWakeups() {
        List<Claimed> runs = startedChains(5);
        List<Long> before = runs.stream().map(c -> fixtures.version(c.runId())).toList();

        GroupCommit.Outcome outcome = groupCommit.apply(runs.stream().map(Claimed::completed).toList(), LocalSteps.NONE);

        assertEquals(new GroupCommit.Outcome(5, 0, 0), outcome);
        for (int i = 0; i < runs.size(); i++) {
            UUID runId = runs.get(i).runId();
            assertEquals(before.get(i) + 1, fixtures.version(runId), "one versioned write per run");
            assertEquals(LongStream.rangeClosed(1, 4).boxed().toList(), fixtures.historySeqs(runId),
                    "started, n0 running, n0 succeeded, n1 running: gap-free");
            assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'TASK'"
                    + " AND node_id = 'n1' AND lease_token IS NULL", runId), "the next node is dispatched");
            assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind <> 'TASK'", runId),
                    "no wakeup: the result was the tick's input");
            assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1", runId));
        }
    }

    @Test
    void aCommitLeasesAsManyNextStepsToItsPodAsItHasSlotsAndQueuesTheRest() {
        List<Claimed> runs = startedChains(3);
        FixedSlots eager = new FixedSlots(2, "noop"::equals);

        GroupCommit.Outcome outcome = groupCommit.apply(runs.stream().map(Claimed::completed).toList(), eager);

        assertEquals(3, outcome.committed());
        assertEquals(2, outcome.leased().size(), "two slots: two next steps leased to this pod");
        assertEquals(outcome.leased(), eager.handedOver, "handed to the pod's worker once the commit ended");
        assertEquals(1, eager.reservations, "slots reserved once, after the tick, for the steps it dispatched");
        for (QueueItem next : outcome.leased()) {
            assertEquals("n1", next.nodeId());
            assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE id = ?1 AND lease_token = ?2"
                    + " AND lease_owner = 'pod-eager'", next.id(), next.leaseToken()), "leased in the commit itself");
        }
        long queued = 0;
        for (Claimed run : runs) {
            queued += fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND node_id = 'n1'"
                    + " AND lease_token IS NULL", run.runId());
        }
        assertEquals(1, queued, "the third waits for a claim");

        QueueItem leased = outcome.leased().get(0);
        GroupCommit.Outcome next = groupCommit.apply(List.of(StepReport.completed(leased.id(), leased.leaseToken(),
                leased.runId(), leased.nodeId(), leased.attempt(), leased.tenant(), leased.tier(), null)), LocalSteps.NONE);
        assertEquals(1, next.committed(), "an eagerly leased step reports like a claimed one, fenced by its token");
    }

    @Test
    void aStepOfAHandlerThisPodCannotRunIsNeverLeasedToIt() {
        Claimed run = startedChains(1).get(0);
        FixedSlots nothingRunsHere = new FixedSlots(8, handler -> false);

        assertEquals(List.of(), groupCommit.apply(List.of(run.completed()), nothingRunsHere).leased());
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND node_id = 'n1'"
                + " AND lease_token IS NULL", run.runId()));
    }

    @Test
    void theLastStepsResultFinishesTheRunAndLeavesNoQueueRows() {
        String workflow = fixtures.chain(TENANT, 1, "noop");
        UUID runId = fixtures.start(TENANT, workflow);
        QueueItem task = fixtures.claimTasks(runId, Set.of("noop")).get(0);

        groupCommit.apply(List.of(new Claimed(runId, task).completed()), LocalSteps.NONE);

        assertEquals("SUCCEEDED", fixtures.status(runId));
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1", runId));
    }

    @Test
    void aFencedResultChangesNothing() {
        Claimed run = startedChains(1).get(0);
        long before = fixtures.version(run.runId());
        StepReport stale = StepReport.completed(run.task().id(), UUID.randomUUID(), run.runId(), run.task().nodeId(),
                run.task().attempt(), TENANT, run.task().tier(), null);
        double staleBefore = staleReports();

        assertEquals(new GroupCommit.Outcome(0, 0, 1, List.of(), java.util.Set.of(run.task().id())),
                groupCommit.apply(List.of(stale), LocalSteps.NONE), "fenced, and named as such");

        assertEquals(staleBefore + 1, staleReports(), "an operator sees fencing at work: ductor_stale_reports_total");
        assertEquals(before, fixtures.version(run.runId()));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE id = ?1", run.task().id()),
                "the task row stays with the lease that holds it");
    }

    /**
     * The same race against both commit paths: another pod's versioned write to the run lands (and holds its row
     * lock) while the commit is under way. The entity's {@code @Version} flush, which read the row before, raises a
     * conflict naming both versions. The group commit locks its runs before it reads them (the lock order every writer of
     * runs and tasks keeps, {@link RunRows#lock}), so it waits for that write and ticks on the state it left: the
     * contended run's result is applied on top of the other pod's write, as are its neighbours', nothing goes to the inbox.
     */
    @Test
    void theEntityPathLosesTheRaceAndTheGroupCommitWaitsForTheWriterAndCommitsOnItsState() throws Exception {
        List<Claimed> runs = startedChains(3);
        Claimed contended = runs.get(1);
        long before = fixtures.version(contended.runId());

        RunConflictException entityPath = raceAgainstAnotherPod(contended.runId(), before, () -> {
            try {
                QuarkusTransaction.requiringNew().run(() -> {
                    LoadedRun loaded = loader.load(contended.runId()).orElseThrow();
                    List<dev.ductor.run.core.Input> inputs = List.of(contended.completed().input());
                    committer.commit(loaded, Tick.tick(loaded.snapshot(), inputs, clock.instant()), clock.instant());
                });
                return null;
            } catch (RunConflictException conflict) {
                return conflict;
            }
        });
        assertEquals(before, entityPath.expectedVersion());
        assertEquals(before + 1, entityPath.actualVersion());

        long raced = fixtures.version(contended.runId());
        GroupCommit.Outcome outcome = raceAgainstAnotherPod(contended.runId(), raced,
                () -> groupCommit.apply(runs.stream().map(Claimed::completed).toList(), LocalSteps.NONE));

        assertEquals(new GroupCommit.Outcome(3, 0, 0), outcome);
        assertEquals(raced + 2, fixtures.version(contended.runId()), "the group commit wrote after the other pod's write");
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1", contended.runId()),
                "nothing went through the inbox");
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE id = ?1", contended.task().id()),
                "its task row was taken: the result is applied once");
        for (Claimed run : runs) {
            assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND node_id = 'n1'",
                    run.runId()), "every run of the group moved on to its next step");
        }
    }

    private double staleReports() {
        return meters.get("ductor.stale.reports").tag("path", "group-commit").counter().count();
    }

    /**
     * Runs {@code attempt} while another transaction holds a versioned write to the run (at {@code version}),
     * and commits that write once {@code attempt} waits for its lock, so {@code attempt} has read the old row.
     */
    private <T> T raceAgainstAnotherPod(UUID runId, long version, Supplier<T> attempt) throws Exception {
        try (Connection otherPod = dataSource.getConnection()) {
            otherPod.setAutoCommit(false);
            try (PreparedStatement bump = otherPod.prepareStatement("UPDATE eec_workflow_run SET db_record_version ="
                    + " db_record_version + 1 WHERE run_id = ? AND db_record_version = ?")) {
                bump.setObject(1, runId);
                bump.setLong(2, version);
                assertEquals(1, bump.executeUpdate());
            }
            CompletableFuture<T> result = CompletableFuture.supplyAsync(attempt);
            LockHolder.awaitSomeoneBlocked(dataSource);
            otherPod.commit();
            return result.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRunThatCannotBeTickedHereKeepsItsResultInItsInbox() throws Exception {
        List<Claimed> runs = startedChains(2);
        Claimed corrupt = runs.get(0);
        try (Connection connection = dataSource.getConnection();
             PreparedStatement tamper = connection.prepareStatement(
                     "UPDATE eec_workflow_run SET state_checksum = 'tampered' WHERE run_id = ?")) {
            tamper.setObject(1, corrupt.runId());
            assertEquals(1, tamper.executeUpdate());
        }

        GroupCommit.Outcome outcome = groupCommit.apply(runs.stream().map(Claimed::completed).toList(), LocalSteps.NONE);

        assertEquals(1, outcome.committed());
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL",
                corrupt.runId()), "the result is kept where the coordinator will find (and report) the bad state");
        assertThrows(CorruptRunStateException.class, () -> QuarkusTransaction.requiringNew()
                .run(() -> loader.load(corrupt.runId())));
    }
}
