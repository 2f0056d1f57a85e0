package dev.ductor.run.coordinator;

import dev.ductor.queue.QueueItem;
import dev.ductor.run.LoadedRun;
import dev.ductor.run.RunConflictException;
import dev.ductor.run.RunLoader;
import dev.ductor.run.commit.RunCommitter;
import dev.ductor.run.core.Tick;
import dev.ductor.run.core.TickResult;
import dev.ductor.support.LockHolder;
import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import dev.ductor.worker.TaskResults;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.agroal.api.AgroalDataSource;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two pods ticking one run at once, on real PostgreSQL: the version check lets exactly one through. */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class ConcurrentTickTest {

    private static final String TENANT = "conc";

    @Inject
    Fixtures fixtures;

    @Inject
    RunLoader loader;

    @Inject
    RunCommitter committer;

    @Inject
    TaskResults results;

    @Inject
    TickRetries retries;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    Clock clock;

    /** A started chain whose first task has completed: one tick's worth of pending progress. */
    private UUID runWithPendingResult() {
        String workflow = fixtures.chain(TENANT, 3, "noop");
        UUID runId = fixtures.start(TENANT, workflow);
        List<QueueItem> tasks = fixtures.claimTasks(runId, Set.of("noop"));
        assertEquals(1, tasks.size());
        results.complete(tasks.get(0).id(), tasks.get(0).leaseToken(), fixtures.json("{\"done\":true}"));
        return runId;
    }

    @Test
    void twoTicksFromTheSameSnapshotCommitExactlyOnceAndTheLoserWritesNothing() throws Exception {
        UUID runId = runWithPendingResult();
        long before = fixtures.version(runId);
        long historyBefore = fixtures.historySeqs(runId).size();
        CyclicBarrier bothLoaded = new CyclicBarrier(2);
        ExecutorService pods = Executors.newFixedThreadPool(2);
        List<Future<Object>> outcomes = new ArrayList<>();
        for (int pod = 0; pod < 2; pod++) {
            outcomes.add(pods.submit(() -> {
                try {
                    QuarkusTransaction.requiringNew().run(() -> {
                        LoadedRun loaded = loader.load(runId).orElseThrow();
                        await(bothLoaded);
                        TickResult result = Tick.tick(loaded.snapshot(), loaded.inbox(), clock.instant());
                        committer.commit(loaded, result, clock.instant());
                    });
                    return "committed";
                } catch (RunConflictException conflict) {
                    return conflict;
                }
            }));
        }
        List<Object> seen = new ArrayList<>();
        for (Future<Object> outcome : outcomes) {
            seen.add(outcome.get(30, TimeUnit.SECONDS));
        }
        pods.shutdown();

        assertEquals(1, Collections.frequency(seen, "committed"), "exactly one tick commits: " + seen);
        RunConflictException conflict = (RunConflictException) seen.stream().filter(o -> o != "committed").findFirst().orElseThrow();
        assertEquals(before, conflict.expectedVersion());
        assertEquals(before + 1, conflict.actualVersion());
        assertEquals(before + 1, fixtures.version(runId), "db_record_version counts committed ticks");
        List<Long> seqs = fixtures.historySeqs(runId);
        assertEquals(LongStream.rangeClosed(1, seqs.size()).boxed().toList(), seqs, "history is gap-free and duplicate-free");
        assertEquals(historyBefore + 2, seqs.size(), "one tick's transitions (n0 succeeded, n1 dispatched), not two");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'TASK'", runId),
                "the loser dispatched nothing");
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL", runId));
    }

    /**
     * The loser's retry must start a new transaction and re-read. Run here inside an outer transaction: if a
     * retry ever joined it (REQUIRED instead of REQUIRES_NEW, or @Retry inside @Transactional), the second
     * attempt would see the stale row from the persistence context, conflict again, and exhaust its retries.
     */
    @Test
    void aLostTickIsRetriedInAFreshTransactionOnFreshState() throws Exception {
        UUID runId = runWithPendingResult();
        long before = fixtures.version(runId);
        CountDownLatch winnerFlushed = new CountDownLatch(1);
        CountDownLatch loserBlocked = new CountDownLatch(1);
        CompletableFuture<Void> winner = CompletableFuture.runAsync(() -> QuarkusTransaction.requiringNew().run(() -> {
            LoadedRun loaded = loader.load(runId).orElseThrow();
            committer.commit(loaded, Tick.tick(loaded.snapshot(), loaded.inbox(), clock.instant()), clock.instant());
            winnerFlushed.countDown(); // the row is locked by our uncommitted UPDATE until we return
            await(loserBlocked);
        }));
        assertTrue(winnerFlushed.await(30, TimeUnit.SECONDS));
        Attempts attempts = new Attempts();
        CompletableFuture<TickResult> loser = CompletableFuture.supplyAsync(() ->
                QuarkusTransaction.requiringNew().call(() -> retries.tick(runId, List.of(), List.of(), attempts)));
        LockHolder.awaitSomeoneBlocked(dataSource);
        loserBlocked.countDown();
        winner.get(30, TimeUnit.SECONDS);

        TickResult retried = loser.get(30, TimeUnit.SECONDS);
        assertEquals(2, attempts.made(), "the first attempt lost, the second re-read and found nothing left to do");
        assertNotNull(retried);
        assertTrue(retried.isNoop());
        assertEquals(before + 1, fixtures.version(runId));
    }

    @Test
    void manyRedundantWakeupsAtOnceAdvanceTheRunOnce() throws Exception {
        UUID runId = runWithPendingResult();
        long before = fixtures.version(runId);
        int pods = 8;
        CyclicBarrier start = new CyclicBarrier(pods);
        ExecutorService pool = Executors.newFixedThreadPool(pods);
        List<Future<TickResult>> ticks = new ArrayList<>();
        for (int i = 0; i < pods; i++) {
            ticks.add(pool.submit(() -> {
                await(start);
                return retries.tick(runId, List.of(), List.of(), new Attempts());
            }));
        }
        int progressed = 0;
        for (Future<TickResult> tick : ticks) {
            TickResult result = tick.get(60, TimeUnit.SECONDS);
            progressed += result.madeProgress() ? 1 : 0;
        }
        pool.shutdown();
        assertEquals(1, progressed, "one wakeup advanced the run; the others lost or found nothing to do");
        assertEquals(before + 1, fixtures.version(runId));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'TASK'", runId));
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
