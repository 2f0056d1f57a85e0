package dev.ductor.run;

import dev.ductor.error.IdempotencyKeyReusedException;
import dev.ductor.error.NotFoundException;
import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import dev.ductor.workflow.WorkflowService;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Starts that arrive together commit in groups, and a group answers every start as a start of its own would: one
 * run per idempotency key however the racing repeats fall into groups, a reused key with another body refused, an
 * unknown workflow, or a start the database refuses, refused without costing its group-mates their runs.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class StartBatcherTest {

    private static final String TENANT = "start-batcher";

    @Inject
    StartBatcher starts;

    @Inject
    Fixtures fixtures;

    @Inject
    WorkflowService workflows;

    /**
     * A workflow whose current revision this JVM has seen, as after its first start: its starts are prepared before
     * they join a group and written by the group's one statement (the other way, the transaction, is every first start's).
     */
    private String seen(String workflow) {
        workflows.currentIfAny(TENANT, workflow);
        return workflow;
    }

    /** Runs every call at once (released together by a barrier) and returns what each gave, value or exception. */
    private static List<Object> together(List<Callable<RunStarter.Started>> calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(calls.size());
        try {
            CyclicBarrier barrier = new CyclicBarrier(calls.size());
            List<Future<Object>> futures = new ArrayList<>();
            for (Callable<RunStarter.Started> call : calls) {
                futures.add(pool.submit(() -> {
                    barrier.await();
                    try {
                        return call.call();
                    } catch (RuntimeException refused) {
                        return refused;
                    }
                }));
            }
            List<Object> outcomes = new ArrayList<>();
            for (Future<Object> future : futures) {
                outcomes.add(future.get());
            }
            return outcomes;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void racingStartsAndTheirRepeatsMakeOneRunPerKey() throws Exception {
        String workflow = seen(fixtures.chain(TENANT, 2, "noop"));
        List<Callable<RunStarter.Started>> calls = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            String key = i < 16 ? "key-" + (i % 8) : null; // 8 keys sent twice each, 8 starts without a key
            calls.add(() -> starts.start(TENANT, workflow, new StartRequest(fixtures.json("{\"n\":1}"), key, "standard")));
        }

        List<Object> outcomes = together(calls);

        Map<String, Set<UUID>> runsByKey = new HashMap<>();
        Map<String, Integer> createdByKey = new HashMap<>();
        Set<UUID> keyless = new HashSet<>();
        for (int i = 0; i < outcomes.size(); i++) {
            RunStarter.Started started = assertInstanceOf(RunStarter.Started.class, outcomes.get(i), "start " + i);
            if (i < 16) {
                runsByKey.computeIfAbsent("key-" + (i % 8), k -> new HashSet<>()).add(started.run().runId());
                createdByKey.merge("key-" + (i % 8), started.created() ? 1 : 0, Integer::sum);
            } else {
                assertTrue(started.created());
                keyless.add(started.run().runId());
            }
        }
        runsByKey.forEach((key, runs) -> assertEquals(1, runs.size(), key + ": both starts answer the same run"));
        createdByKey.forEach((key, created) -> assertEquals(1, created, key + ": one 201, one 200"));
        assertEquals(8, keyless.size());
        assertEquals(16, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE tenant = ?1 AND workflow_name = ?2",
                TENANT, workflow), "8 keyed runs and 8 without a key, nothing twice");
        for (Set<UUID> runs : runsByKey.values()) {
            UUID runId = runs.iterator().next();
            assertEquals(List.of(1L, 2L), fixtures.historySeqs(runId), "started, n0 dispatched: once");
            assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1", runId), "one first task");
        }
    }

    @Test
    void aRefusedStartCostsItsGroupNothing() throws Exception {
        String workflow = seen(fixtures.chain(TENANT, 1, "noop"));
        List<Callable<RunStarter.Started>> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            calls.add(() -> starts.start(TENANT, workflow, new StartRequest(fixtures.json("{\"a\":1}"), "same-key", "standard")));
        }
        calls.add(() -> starts.start(TENANT, workflow, new StartRequest(fixtures.json("{\"a\":2}"), "same-key", "standard")));
        calls.add(() -> starts.start(TENANT, "no-such-workflow", new StartRequest(fixtures.json("{}"), null, "standard")));
        calls.add(() -> starts.start(TENANT, workflow, new StartRequest(fixtures.json("{}"), "other-key", "standard")));

        List<Object> outcomes = together(calls);

        assertInstanceOf(NotFoundException.class, outcomes.get(7), "the unknown workflow is refused");
        assertTrue(assertInstanceOf(RunStarter.Started.class, outcomes.get(8)).created(), "its neighbour still starts");
        // Whichever body got the key first owns it; every start with the other body is refused with 422.
        long refused = outcomes.subList(0, 7).stream().filter(o -> o instanceof IdempotencyKeyReusedException).count();
        long answered = outcomes.subList(0, 7).stream().filter(o -> o instanceof RunStarter.Started).count();
        assertEquals(7, refused + answered, "every start answered or refused: " + outcomes);
        assertTrue(refused == 1 || refused == 6, "one body won the key, the other body's starts are refused: " + outcomes);
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE tenant = ?1 AND workflow_name = ?2"
                + " AND idempotency_key = 'same-key'", TENANT, workflow));
    }

    /** A start the database refuses (PostgreSQL's jsonb stores no NUL) fails alone: its group is committed again without it. */
    @Test
    void aStartTheDatabaseRefusesFailsAlone() throws Exception {
        String workflow = seen(fixtures.chain(TENANT, 1, "noop"));
        List<Callable<RunStarter.Started>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String input = i == 3 ? "{\"a\":\"nul\\u0000here\"}" : "{\"a\":" + i + "}";
            calls.add(() -> starts.start(TENANT, workflow, new StartRequest(fixtures.json(input), null, "standard")));
        }

        List<Object> outcomes = together(calls);

        assertInstanceOf(RuntimeException.class, outcomes.get(3), "the NUL cannot be stored: " + outcomes.get(3));
        for (int i = 0; i < outcomes.size(); i++) {
            if (i != 3) {
                assertTrue(assertInstanceOf(RunStarter.Started.class, outcomes.get(i), "start " + i).created());
            }
        }
        assertEquals(7, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE tenant = ?1 AND workflow_name = ?2",
                TENANT, workflow), "every start but the refused one");
    }
}
