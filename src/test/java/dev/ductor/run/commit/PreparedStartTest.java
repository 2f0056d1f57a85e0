package dev.ductor.run.commit;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.PodIdentity;
import dev.ductor.run.read.RunView;
import dev.ductor.support.Fixtures;
import dev.ductor.workflow.WorkflowService;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A start prepared on the caller's thread, on the revision this JVM last saw current, is written by one
 * self-committing statement ({@link RunStarter#startPrepared}) whole or not at all: not when its revision is no longer
 * current or its idempotency key is taken, and then the group's transaction ({@link StartBatcher}) starts it on the
 * current revision, or answers the run that holds the key.
 */
@QuarkusTest
@TestProfile(EagerStartTest.SlotsToSpare.class)
@Tag("db")
class PreparedStartTest {

    private static final String TENANT = "prepared-start";

    @Inject Fixtures fixtures;
    @Inject RunStarter starter;
    @Inject StartBatcher starts;
    @Inject WorkflowService workflows;
    @Inject PodIdentity pod;
    @Inject DuctorConfig config;

    private RunStarter.Prepared prepared(String workflow, String key, String input) {
        workflows.currentIfAny(TENANT, workflow); // as the first start of a workflow in this JVM does
        RunStarter.Prepared prepared = starter.prepareOnLastSeen(new RunStarter.Request(TENANT, workflow,
                new StartRequest(fixtures.json(input), key, "standard")));
        assertNotNull(prepared, "the revision was seen current, so the start is prepared");
        return prepared;
    }

    @Test
    void aPreparedStartIsWrittenWholeAndRuns() {
        // A step that takes a while, so its queue row is still there to look at.
        String workflow = fixtures.define(TENANT, """
                {"nodes":[{"id":"n0","type":"task","handler":"sleep","input":{"ms":1500}},
                          {"id":"n1","type":"task","handler":"noop","dependsOn":["n0"]}]}""");
        RunStarter.Prepared prepared = prepared(workflow, "whole", "{\"n\":1}");

        RunStarter.Result[] written = starter.startPrepared(List.of(prepared));

        assertNotNull(written[0], "written by the statement");
        RunView answer = written[0].started().run();
        assertTrue(written[0].started().created());
        UUID runId = answer.runId();
        assertEquals(prepared.row().runId(), runId);
        assertEquals(1, answer.revision());
        assertEquals(0, fixtures.version(runId), "a new run starts at version 0");
        assertEquals(List.of(1L, 2L), fixtures.historySeqs(runId), "started, n0 dispatched");
        // Its first step is leased to this pod in that statement, since a slot is free and dispatch is eager (both pinned
        // by EagerStartTest.SlotsToSpare):
        // the lease ends exactly one lease after the row was created, where a claim's would end later.
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND node_id = 'n0'"
                        + " AND lease_owner = ?2 AND deliveries = 1 AND available_at = created_at + make_interval(secs => ?3)",
                runId, pod.name(), (double) config.worker().lease().toSeconds()), fixtures.rows(
                "SELECT node_id, lease_owner, deliveries, created_at, available_at FROM eec_queue_item WHERE run_id = ?1", runId));
        // The run finishes: its row's seal (checked at every load) and its node states are what a tick reads.
        fixtures.awaitStatus(runId, "SUCCEEDED");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE run_id = ?1 AND idempotency_key = 'whole'"
                + " AND request_fingerprint IS NOT NULL", runId));
    }

    @Test
    void aStartPreparedOnARevisionNoLongerCurrentIsNotWrittenAndStartsOnTheCurrentOne() {
        String workflow = fixtures.chain(TENANT, 1, "noop");
        RunStarter.Prepared stale = prepared(workflow, null, "{}");
        // Another pod, say, puts a new revision: this JVM still has the first one as the last seen.
        workflows.put(TENANT, workflow, fixtures.json("""
                {"nodes":[{"id":"a","type":"task","handler":"noop"},{"id":"b","type":"task","handler":"noop","dependsOn":["a"]}]}"""),
                OptionalLong.of(0)); // the version the definition's first put left

        RunStarter.Result[] written = starter.startPrepared(List.of(stale));

        assertNull(written[0], "not written: its revision is no longer the current one");
        UUID staleId = stale.row().runId();
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE run_id = ?1", staleId));
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1", staleId));
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1", staleId));

        RunStarter.Started started = starts.start(TENANT, workflow, new StartRequest(fixtures.json("{}"), null, "standard"));
        assertEquals(2, started.run().revision(), "the group's transaction pinned the current revision");
        fixtures.awaitStatus(started.run().runId(), "SUCCEEDED");
        assertEquals(2, starter.prepareOnLastSeen(new RunStarter.Request(TENANT, workflow,
                new StartRequest(fixtures.json("{}"), null, "standard"))).row().revision(), "and it is the last seen now");
    }

    @Test
    void aStartPreparedWithATakenKeyIsNotWrittenAndAnswersTheRunThatHoldsIt() {
        String workflow = fixtures.chain(TENANT, 1, "noop");
        RunStarter.Started first = starts.start(TENANT, workflow, new StartRequest(fixtures.json("{\"x\":1}"), "taken", "standard"));
        RunStarter.Prepared repeat = prepared(workflow, "taken", "{\"x\":1}");

        assertNull(starter.startPrepared(List.of(repeat))[0], "the key is taken: not written");
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1", repeat.row().runId()));
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1", repeat.row().runId()));

        RunStarter.Started again = starts.start(TENANT, workflow, new StartRequest(fixtures.json("{\"x\":1}"), "taken", "standard"));
        assertFalse(again.created(), "a repeat");
        assertEquals(first.run().runId(), again.run().runId());
    }

    @Test
    void ofTwoPreparedStartsWithOneKeyInOneStatementTheFirstIsWritten() {
        String workflow = fixtures.chain(TENANT, 1, "noop");
        RunStarter.Prepared a = prepared(workflow, "twice", "{}");
        RunStarter.Prepared b = prepared(workflow, "twice", "{}");

        RunStarter.Result[] written = starter.startPrepared(List.of(a, b));

        assertNotNull(written[0]);
        assertNull(written[1], "the second finds the key taken by the first");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE tenant = ?1 AND idempotency_key = 'twice'"
                + " AND workflow_name = ?2", TENANT, workflow));
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1", b.row().runId()));
        fixtures.awaitStatus(a.row().runId(), "SUCCEEDED");
    }
}
