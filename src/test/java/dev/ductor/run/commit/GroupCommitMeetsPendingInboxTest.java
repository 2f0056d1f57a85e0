package dev.ductor.run.commit;

import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.run.LocalSteps;
import dev.ductor.run.StepReport;
import dev.ductor.run.command.RunOperations;
import dev.ductor.run.coordinator.Coordinator;
import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A group commit ticks each run on its row and its pending inbox together, read under the run's lock: a signal that
 * reached the inbox before the step's report (and whose wakeup no coordinator has ticked yet) is an input of the same
 * tick as the report, applied once, and its inbox row consumed in that commit.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class GroupCommitMeetsPendingInboxTest {

    private static final String TENANT = "group-inbox";

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
    Clock clock;

    @Test
    void aSignalPendingInTheInboxIsAppliedOnceWithTheStepReportOfTheSameCommit() {
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"prep\",\"type\":\"task\",\"handler\":\"noop\"},"
                + "{\"id\":\"approve\",\"type\":\"signal\",\"signal\":\"approve\",\"dependsOn\":[\"prep\"]}]}");
        UUID runId = fixtures.start(TENANT, workflow);
        QueueItem prep = fixtures.claimTasks(runId, Set.of("noop")).get(0);
        operations.signal(TENANT, runId, "approve", fixtures.json("{}"), "approve-1"); // early: approve does not wait yet
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL", runId),
                "the signal waits in the inbox");
        long version = fixtures.version(runId);

        GroupCommit.Outcome outcome = groupCommit.apply(List.of(StepReport.completed(prep.id(), prep.leaseToken(), runId,
                prep.nodeId(), prep.attempt(), TENANT, prep.tier(), null)), LocalSteps.NONE);

        assertEquals(new GroupCommit.Outcome(1, 0, 0), outcome);
        assertEquals(version + 1, fixtures.version(runId), "one tick took the report and the signal together");
        assertEquals("SUCCEEDED", fixtures.status(runId), "prep's result and the approval, both applied");
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL", runId),
                "the inbox row is consumed by the commit that applied it");
        assertEquals(1, countSucceeded(runId, "prep"));
        assertEquals(1, countSucceeded(runId, "approve"));

        long historyBefore = fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1", runId);
        tickWhatIsDue(runId); // the signal's own wakeup, still queued, finds nothing left to apply
        assertEquals(historyBefore, fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1", runId),
                "the signal is not applied a second time by its wakeup");
        assertEquals(1, countSucceeded(runId, "approve"));
    }

    private long countSucceeded(UUID runId, String node) {
        return fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1 AND node_id = ?2"
                + " AND to_state = 'SUCCEEDED'", runId, node);
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
            coordinator.process(runId, claimed).toCompletableFuture().join();
        }
    }
}
