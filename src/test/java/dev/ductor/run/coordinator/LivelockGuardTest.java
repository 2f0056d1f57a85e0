package dev.ductor.run.coordinator;

import dev.ductor.queue.QueueItem;
import dev.ductor.run.InboxKind;
import dev.ductor.run.LoadedRun;
import dev.ductor.run.RunInbox;
import dev.ductor.run.RunLoader;
import dev.ductor.run.commit.RunCommitter;
import dev.ductor.run.core.Tick;
import dev.ductor.support.Fixtures;
import dev.ductor.support.LockHolder;
import dev.ductor.support.SingleAttempt;
import dev.ductor.worker.TaskResults;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Requeue and livelock behaviour of the coordinator, with in-process retries off so that one lost race
 * exhausts a tick. A competing transaction is made to win by holding the run's row lock until the tick
 * under test blocks on it.
 */
@QuarkusTest
@TestProfile(SingleAttempt.class)
@Tag("db")
class LivelockGuardTest {

    private static final String TENANT = "livelock";

    @Inject
    Fixtures fixtures;

    @Inject
    Coordinator coordinator;

    @Inject
    RunLoader loader;

    @Inject
    RunCommitter committer;

    @Inject
    RunInbox inbox;

    @Inject
    TaskResults results;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    EntityManager em;

    @Inject
    MeterRegistry registry;

    @Inject
    Clock clock;

    private UUID startedChain() {
        return fixtures.start(TENANT, fixtures.chain(TENANT, 3, "noop"));
    }

    /** A result for an attempt that never existed: ticking it commits (the inbox row is consumed) without progress. */
    private void staleResult(UUID runId) {
        QuarkusTransaction.requiringNew().run(() -> inbox.deliver(runId, InboxKind.TASK_RESULT, "result:n0:" + UUID.randomUUID(),
                "n0", 99, null, "{\"completed\":true,\"output\":{}}", clock.instant()));
    }

    private void realResult(UUID runId) {
        QueueItem task = fixtures.claimTasks(runId, Set.of("noop")).get(0);
        results.complete(task.id(), task.leaseToken(), fixtures.json("{}"));
    }

    /** Lets another transaction win the race against {@code coordinator.process(runId, lost)}. */
    private void loseRace(UUID runId, QueueItem lost) throws Exception {
        CountDownLatch winnerFlushed = new CountDownLatch(1);
        CountDownLatch loserBlocked = new CountDownLatch(1);
        CompletableFuture<Void> winner = CompletableFuture.runAsync(() -> QuarkusTransaction.requiringNew().run(() -> {
            LoadedRun loaded = loader.load(runId).orElseThrow();
            committer.commit(loaded, Tick.tick(loaded.snapshot(), loaded.inbox(), clock.instant()), clock.instant());
            winnerFlushed.countDown();
            try {
                assertTrue(loserBlocked.await(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }));
        assertTrue(winnerFlushed.await(30, TimeUnit.SECONDS));
        CompletableFuture<Void> loser = CompletableFuture.runAsync(() -> coordinator.process(runId, List.of(lost)));
        LockHolder.awaitSomeoneBlocked(dataSource);
        loserBlocked.countDown();
        winner.get(30, TimeUnit.SECONDS);
        loser.get(30, TimeUnit.SECONDS);
    }

    private Object[] requeued(QueueItem lost, int count) {
        return QuarkusTransaction.requiringNew().call(() -> (Object[]) em.createNativeQuery(
                        "SELECT requeue_count, CAST(payload AS text), available_at, created_at, kind FROM eec_queue_item WHERE task_key = ?1")
                .setParameter(1, WakeupRequeuer.key(lost, count)).getSingleResult());
    }

    private static Instant instant(Object value) {
        return value instanceof OffsetDateTime odt ? odt.toInstant() : (Instant) value;
    }

    @Test
    void aTickThatRunsOutOfRetriesIsRequeuedUnderADistinctKeyWithBackoff() throws Exception {
        UUID runId = startedChain();
        staleResult(runId);
        QueueItem lost = fixtures.claimedWakeup(TENANT, runId, 0, null);
        double requeuesBefore = registry.counter("ductor.requeues").count();

        loseRace(runId, lost);

        Object[] again = requeued(lost, 1);
        assertEquals(1, ((Number) again[0]).intValue(), "the count travels on the wakeup");
        assertTrue(((String) again[1]).contains("\"seenSeq\": " + fixtures.seq(runId))
                || ((String) again[1]).contains("\"seenSeq\":" + fixtures.seq(runId)), "it remembers the run's seq: " + again[1]);
        assertEquals(Duration.ofMillis(100), Duration.between(instant(again[3]), instant(again[2])), "first requeue waits 100 ms");
        assertEquals("WAKEUP", again[4]);
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE id = ?1", lost.id()), "the lost wakeup was replaced");
        assertEquals(requeuesBefore + 1, registry.counter("ductor.requeues").count());
        assertEquals("RUNNING", fixtures.status(runId));
    }

    @Test
    void requeuesWithoutProgressPastTheLimitForceFailTheRunAsLivelocked() throws Exception {
        UUID runId = startedChain();
        staleResult(runId);
        QueueItem lost = fixtures.claimedWakeup(TENANT, runId, 8, "{\"seenSeq\":" + fixtures.seq(runId) + "}");
        double before = registry.counter("ductor.forced.failures", "reason", "livelock").count();

        loseRace(runId, lost);

        assertEquals("FAILED", fixtures.status(runId));
        assertEquals(before + 1, registry.counter("ductor.forced.failures", "reason", "livelock").count());
        assertTrue(fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1 AND node_id IS NULL"
                + " AND to_state = 'FAILED' AND cause LIKE '%livelock%'", runId) == 1, "failed once, through an ordinary tick");
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1", runId), "nothing left queued");
    }

    @Test
    void aHotRunThatKeepsProgressingRestartsItsCountAndIsNeverFailed() throws Exception {
        UUID runId = startedChain();
        realResult(runId);
        long seqBefore = fixtures.seq(runId);
        QueueItem lost = fixtures.claimedWakeup(TENANT, runId, 8, "{\"seenSeq\":" + seqBefore + "}");

        loseRace(runId, lost); // the winner applies a real result: progress

        assertTrue(fixtures.seq(runId) > seqBefore);
        assertEquals("RUNNING", fixtures.status(runId), "eight lost races, but the run moved: not a livelock");
        assertEquals(1, ((Number) requeued(lost, 1)[0]).intValue(), "the count restarted");
    }
}
