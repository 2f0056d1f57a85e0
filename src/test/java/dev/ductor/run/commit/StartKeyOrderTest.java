package dev.ductor.run.commit;

import dev.ductor.run.RunRows;
import dev.ductor.support.Fixtures;
import dev.ductor.support.LockHolder;
import dev.ductor.support.ManualCoordination;
import dev.ductor.workflow.WorkflowService;
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
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Two pods' start groups that share idempotency keys take them in one order, so they cannot deadlock on the unique
 * index (finding 3 of the review at 8269a5d: the start statement inserted in group order). Forced: an uncommitted run
 * holds key {@code k-9}; group A ({@code k-1, k-9, k-2} as submitted) takes {@code k-1} and waits for {@code k-9};
 * group B ({@code k-2, k-1}) would take {@code k-2} and wait for A; once {@code k-9} is free, A would wait for B's
 * {@code k-2}. In key order, B waits for A at {@code k-1} and nothing else can happen.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class StartKeyOrderTest {

    private static final String TENANT = "start-key-order";

    @Inject
    Fixtures fixtures;

    @Inject
    RunStarter starter;

    @Inject
    RunRows rows;

    @Inject
    WorkflowService workflows;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    Clock clock;

    @Test
    void startGroupsSharingKeysInOppositeOrdersDoNotDeadlock() throws Exception {
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"ext:nobody\"}]}");
        WorkflowService.Pinned pinned = QuarkusTransaction.requiringNew()
                .call(() -> workflows.currentIfAny(TENANT, workflow).orElseThrow());
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);

        CompletableFuture<RunRows.StartsWritten> first;
        CompletableFuture<RunRows.StartsWritten> second;
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            RunRows.NewRun held = start(workflow, pinned, now, "k-9").row();
            try (PreparedStatement insert = holder.prepareStatement("""
                    INSERT INTO eec_workflow_run (run_id, tenant, workflow_name, workflow_revision, status, node_states,
                                                  last_transition_seq, state_checksum, idempotency_key, created_at, updated_at)
                    VALUES (?, ?, ?, ?, 'RUNNING', '{}', 1, 'held', ?, ?, ?)""")) {
                insert.setObject(1, UUID.randomUUID());
                insert.setString(2, TENANT);
                insert.setString(3, workflow);
                insert.setInt(4, held.revision());
                insert.setString(5, "k-9");
                insert.setObject(6, OffsetDateTime.now());
                insert.setObject(7, OffsetDateTime.now());
                insert.executeUpdate();
            }
            List<RunRows.NewStart> groupA = List.of(start(workflow, pinned, now, "k-1"), start(workflow, pinned, now, "k-9"),
                    start(workflow, pinned, now, "k-2")).stream().map(StartKeyOrderTest::write).toList();
            List<RunRows.NewStart> groupB = List.of(start(workflow, pinned, now, "k-2"), start(workflow, pinned, now, "k-1"))
                    .stream().map(StartKeyOrderTest::write).toList();
            first = CompletableFuture.supplyAsync(() -> rows.start(groupA, List.of(), List.of(), now));
            LockHolder.awaitBlocked(dataSource, 1);
            second = CompletableFuture.supplyAsync(() -> rows.start(groupB, List.of(), List.of(), now));
            LockHolder.awaitBlocked(dataSource, 2);
            holder.rollback();
        }
        int written = assertNoDeadlock(first).runs().size() + assertNoDeadlock(second).runs().size();
        assertEquals(3, written, "k-1, k-2 and k-9 each started once");
    }

    private RunStarter.Prepared start(String workflow, WorkflowService.Pinned pinned, Instant now, String key) {
        return starter.prepare(new RunStarter.Request(TENANT, workflow,
                new StartRequest(fixtures.json("{}"), key, "standard")), pinned, now);
    }

    private static RunRows.NewStart write(RunStarter.Prepared prepared) {
        return new RunRows.NewStart(prepared.row(), prepared.at(), prepared.transitions());
    }

    private static <T> T assertNoDeadlock(CompletableFuture<T> work) throws Exception {
        try {
            return work.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            for (Throwable cause = failed; cause != null; cause = cause.getCause()) {
                if (cause instanceof SQLException sql && "40P01".equals(sql.getSQLState())) {
                    fail("two start groups deadlocked on their shared keys (40P01): " + sql.getMessage(), failed);
                }
            }
            throw failed;
        }
    }
}
