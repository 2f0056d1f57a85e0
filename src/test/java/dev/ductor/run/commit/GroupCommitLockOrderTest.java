package dev.ductor.run.commit;

import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.run.LocalSteps;
import dev.ductor.run.StepReport;
import dev.ductor.run.command.RunOperations;
import dev.ductor.run.coordinator.Coordinator;
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
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every multi-row writer locks a run row before the task rows of that run (finding 3 of the review at 8269a5d). The group
 * commit used to take its task rows first and lock the runs at its UPDATE, while a coordinator's tick (a cancel here)
 * locks the run at its UPDATE and then deletes the run's task rows: two transactions each holding what the other waits
 * for, which PostgreSQL breaks by killing one of them with SQLSTATE 40P01. The interleaving is forced: the cancel's
 * history INSERT waits behind an uncommitted row with the same (run, seq) until the group commit has started.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class GroupCommitLockOrderTest {

    private static final String TENANT = "lock-order";

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
    void aGroupCommitAndACancelOfTheSameRunDoNotDeadlock() throws Exception {
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"},"
                + "{\"id\":\"b\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"a\"]}]}");
        UUID runId = fixtures.start(TENANT, workflow);
        QueueItem a = fixtures.claimTasks(runId, Set.of("noop")).get(0);
        StepReport completed = StepReport.completed(a.id(), a.leaseToken(), runId, a.nodeId(), a.attempt(), TENANT,
                a.tier(), null);
        operations.cancel(TENANT, runId, "operator");

        CompletableFuture<Void> cancel;
        CompletableFuture<GroupCommit.Outcome> commit;
        try (Connection history = dataSource.getConnection()) {
            // Takes the (run, seq) the cancel's first transition will need, so the cancel, having locked the run row at
            // its UPDATE, waits at its history INSERT, before it touches the run's task rows.
            history.setAutoCommit(false);
            try (PreparedStatement insert = history.prepareStatement("""
                    INSERT INTO eec_run_transition (run_id, seq, at, node_id, from_state, to_state, cause)
                    VALUES (?, ?, ?, NULL, NULL, 'X', 'held by the test')""")) {
                insert.setObject(1, runId);
                insert.setLong(2, fixtures.seq(runId) + 1);
                insert.setObject(3, OffsetDateTime.now());
                insert.executeUpdate();
            }
            cancel = CompletableFuture.runAsync(() -> tickWhatIsDue(runId));
            LockHolder.awaitBlocked(dataSource, 1);
            commit = CompletableFuture.supplyAsync(() -> groupCommit.apply(List.of(completed), LocalSteps.NONE));
            LockHolder.awaitBlocked(dataSource, 2);
            history.rollback();
        }
        assertNoDeadlock(cancel);
        assertNoDeadlock(commit);
        assertEquals("CANCELLED", fixtures.status(runId));
    }

    private static void assertNoDeadlock(CompletableFuture<?> work) throws Exception {
        try {
            work.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            for (Throwable cause = failed; cause != null; cause = cause.getCause()) {
                if (cause instanceof SQLException sql && "40P01".equals(sql.getSQLState())) {
                    fail("a deadlock (40P01) between the group commit and the cancel: " + sql.getMessage(), failed);
                }
            }
            throw failed;
        }
    }

    /** Claims and processes the run's due wakeups, as a coordinator pod would, until none is left. */
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
