package dev.ductor.run.commit;

import dev.ductor.database.DatabaseOutage;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.IdempotencyKeyReusedException;
import dev.ductor.error.NotFoundException;
import dev.ductor.run.RunRows;
import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import dev.ductor.workflow.WorkflowService;
import io.quarkus.test.junit.QuarkusTest;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueRepository;
import io.quarkus.test.junit.TestProfile;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import org.hibernate.exception.DataException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Starts that arrive together commit in groups, and a group answers every start as a start of its own would: one
 * run per idempotency key however the racing repeats fall into groups, a reused key with another body refused, an
 * unknown workflow, or a start the database refuses, refused without costing its group-mates their runs.
 */
@QuarkusTest
@TestProfile(StartBatcherTest.HeldStarts.class)
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
        List<Supplier<CompletableFuture<RunStarter.Started>>> submits = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            submits.add(() -> starts.submit(TENANT, workflow, new StartRequest(fixtures.json("{\"a\":1}"), "same-key", "standard")));
        }
        submits.add(() -> starts.submit(TENANT, workflow, new StartRequest(fixtures.json("{\"a\":2}"), "same-key", "standard")));
        submits.add(() -> starts.submit(TENANT, "no-such-workflow", new StartRequest(fixtures.json("{}"), null, "standard")));
        submits.add(() -> starts.submit(TENANT, workflow, new StartRequest(fixtures.json("{}"), "other-key", "standard")));

        List<Object> outcomes = inOneGroup(workflow, submits);

        assertEquals(List.of(1, 8), HeldRunRows.groups, "the held start alone, then every prepared start in one statement"
                + " (the unknown workflow has no revision to be prepared on)");
        RunStarter.Started owner = assertInstanceOf(RunStarter.Started.class, outcomes.get(0));
        assertTrue(owner.created(), "the first body in the group takes the key");
        for (int i = 1; i < 6; i++) {
            RunStarter.Started repeat = assertInstanceOf(RunStarter.Started.class, outcomes.get(i), "start " + i);
            assertFalse(repeat.created(), "start " + i + " repeats the first");
            assertEquals(owner.run().runId(), repeat.run().runId());
        }
        assertInstanceOf(IdempotencyKeyReusedException.class, outcomes.get(6), "the other body is refused");
        assertInstanceOf(NotFoundException.class, outcomes.get(7), "the unknown workflow is refused");
        assertTrue(assertInstanceOf(RunStarter.Started.class, outcomes.get(8)).created(), "its neighbour still starts");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE tenant = ?1 AND workflow_name = ?2"
                + " AND idempotency_key = 'same-key'", TENANT, workflow));
    }

    /**
     * A start the database refuses (PostgreSQL's jsonb stores no NUL) fails alone, answered 400: its group's statement
     * wrote nothing, and the group is committed again one start at a time.
     */
    @Test
    void aStartTheDatabaseRefusesFailsAlone() throws Exception {
        String workflow = seen(fixtures.chain(TENANT, 1, "noop"));
        List<Supplier<CompletableFuture<RunStarter.Started>>> submits = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String input = i == 3 ? "{\"a\":\"nul\\u0000here\"}" : "{\"a\":" + i + "}";
            submits.add(() -> starts.submit(TENANT, workflow, new StartRequest(fixtures.json(input), null, "standard")));
        }

        List<Object> outcomes = inOneGroup(workflow, submits);

        assertEquals(List.of(1, 8), HeldRunRows.groups, "the held start alone, then the eight in one statement");
        Object refused = outcomes.get(3);
        assertEquals(DataException.class, refused.getClass(), "the NUL cannot be stored: " + refused);
        assertTrue(DatabaseOutage.isDataException((Throwable) refused), "a value refused, SQLSTATE class 22: " + refused);
        assertInstanceOf(BadRequestException.class, DatabaseOutage.answer((Throwable) refused), "answered 400");
        for (int i = 0; i < outcomes.size(); i++) {
            if (i != 3) {
                assertTrue(assertInstanceOf(RunStarter.Started.class, outcomes.get(i), "start " + i).created());
            }
        }
        assertEquals(8, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE tenant = ?1 AND workflow_name = ?2",
                TENANT, workflow), "the held start and every start of the group but the refused one");
    }

    /**
     * Submits a lone start of {@code workflow} and holds the committer in its statement, then submits the others: each
     * is queued when its submit returns, so all of them form the next group. Returns what each gave, value or exception.
     */
    private List<Object> inOneGroup(String workflow, List<Supplier<CompletableFuture<RunStarter.Started>>> submits)
            throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        HeldRunRows.groups.clear();
        HeldRunRows.entered = entered;
        HeldRunRows.release = release;
        CompletableFuture<RunStarter.Started> held = starts.submit(TENANT, workflow,
                new StartRequest(fixtures.json("{}"), null, "standard"));
        assertTrue(entered.await(30, TimeUnit.SECONDS), "the committer reached the statement of the held start");
        List<CompletableFuture<RunStarter.Started>> answers = submits.stream().map(Supplier::get).toList();
        release.countDown();
        assertTrue(held.join().created());
        List<Object> outcomes = new ArrayList<>();
        for (CompletableFuture<RunStarter.Started> answer : answers) {
            try {
                outcomes.add(answer.join());
            } catch (CompletionException e) {
                outcomes.add(e.getCause());
            }
        }
        return outcomes;
    }

    /** The start statement, recording the size of each group it is given, and held once when a test asks. */
    @Alternative
    @ApplicationScoped
    public static class HeldRunRows extends RunRows {

        static final List<Integer> groups = new CopyOnWriteArrayList<>();
        static volatile CountDownLatch entered;
        static volatile CountDownLatch release;

        @Override
        public StartsWritten start(List<NewStart> group, List<NewQueueItem> queued, List<QueueRepository.LeasedItem> leased,
                                   Instant now) {
            groups.add(group.size());
            CountDownLatch hold = release;
            if (hold != null) {
                release = null;
                entered.countDown();
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            return super.start(group, queued, leased, now);
        }
    }

    /** {@link ManualCoordination} with the start statement that a test can hold. */
    public static class HeldStarts extends ManualCoordination {

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(HeldRunRows.class);
        }
    }
}
