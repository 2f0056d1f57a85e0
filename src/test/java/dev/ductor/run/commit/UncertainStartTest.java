package dev.ductor.run.commit;

import dev.ductor.database.StatementCommitUncertain;
import dev.ductor.run.RunRows;
import dev.ductor.support.Fixtures;
import dev.ductor.workflow.WorkflowService;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A start statement whose connection broke after it was applied (finding 2 of the review at 8269a5d): the client got a
 * 503 "may have been applied", the run and its first step's queue row exist, leased to this pod under a token no slot
 * holds. The pod hands that lease back as soon as the database answers, and the run goes on at once, instead of its
 * step waiting out a whole lease (30 s) for the reaper.
 */
@QuarkusTest
@TestProfile(UncertainStartTest.CommitsCutShort.class)
@Tag("db")
class UncertainStartTest {

    private static final String TENANT = "uncertain-start";

    /** The start statement is applied, then its answer is lost, as when the connection breaks at that moment. */
    @Alternative
    @ApplicationScoped
    public static class AnswerLostRunRows extends RunRows {

        @Override
        public StartsWritten start(List<NewStart> group, List<dev.ductor.queue.NewQueueItem> queued,
                                   List<dev.ductor.queue.QueueRepository.LeasedItem> leased, Instant now) {
            super.start(group, queued, leased, now);
            throw new PersistenceException("a group of starts could not be written", new StatementCommitUncertain(
                    new SQLException("An I/O error occurred while sending to the backend", "08006")));
        }
    }

    /**
     * Eager dispatch pinned, whatever the switch says (-Pslow-paths): under queue a start leases nothing, so there is no
     * lease to hand back. The overrides are system properties while the app runs, so they beat the profile's own.
     */
    public static class CommitsCutShort implements QuarkusTestProfile {

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(AnswerLostRunRows.class);
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("ductor.dispatch.local", "eager");
        }
    }

    @Inject
    Fixtures fixtures;

    @Inject
    RunStarter starter;

    @Inject
    WorkflowService workflows;

    @Inject
    Clock clock;

    @Inject
    StartBatcher starts;

    @Test
    void theLeasesOfAStartWhoseAnswerWasLostAreHandedBackAndTheRunGoesOn() throws Exception {
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"}]}");
        WorkflowService.Pinned pinned = QuarkusTransaction.requiringNew()
                .call(() -> workflows.currentIfAny(TENANT, workflow).orElseThrow());
        RunStarter.Prepared start = starter.prepare(new RunStarter.Request(TENANT, workflow,
                new StartRequest(fixtures.json("{}"), "k-1", "standard")), pinned, clock.instant().truncatedTo(ChronoUnit.MICROS));
        UUID runId = start.row().runId();

        assertThrows(PersistenceException.class, () -> starter.startPrepared(List.of(start)));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'TASK'"
                + " AND lease_token IS NOT NULL", runId), "the start was applied, its step leased to this pod");

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!"SUCCEEDED".equals(fixtures.status(runId)) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals("SUCCEEDED", fixtures.status(runId), "its step waited out its lease");
        assertEquals(1, fixtures.count("SELECT (node_states -> 'a' ->> 'attempts')::int FROM eec_workflow_run WHERE run_id = ?1",
                runId), "on its first attempt");
    }

    /**
     * A group of starts whose statement failed for a reason other than a value the database refused may have been
     * applied: it is not committed again by the fallback, which would apply a keyless start a second time. The start
     * fails with the statement's error, and the client, who has no key, finds the one run by its own means.
     */
    @Test
    void aKeylessStartWhoseGroupFailedOtherwiseIsNotAppliedTwice() {
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"}]}");
        workflows.currentIfAny(TENANT, workflow); // seen current: the start is prepared and goes to the statement

        PersistenceException failed = assertThrows(PersistenceException.class, () -> starts.start(TENANT, workflow,
                new StartRequest(fixtures.json("{}"), null, "standard")));

        assertEquals("a group of starts could not be written", failed.getMessage(), "the statement's own failure");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE tenant = ?1 AND workflow_name = ?2",
                TENANT, workflow), "applied once, by the statement, and not again by a transaction");
    }
}
