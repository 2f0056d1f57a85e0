package dev.ductor.run.coordinator;

import dev.ductor.config.JsonCodec;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.run.InboxKind;
import dev.ductor.run.LoadedRun;
import dev.ductor.run.NodeStatesCodec;
import dev.ductor.run.RunInbox;
import dev.ductor.run.RunLoader;
import dev.ductor.run.RunLoaderWiring;
import dev.ductor.run.RunRows;
import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import dev.ductor.workflow.WorkflowService;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A coordinator batch is not held up by one of its runs losing race after race: that run's retries, whose last
 * delay is a second, go on beside the batch, and the batch's other runs are ticked and acknowledged meanwhile, well
 * inside their lease. Ordered by latches: the losing run's first retry waits until the next run of the batch has
 * been reached, which on a batch thread busy retrying never happens.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class CoordinatorBatchIsolationTest {

    private static final String TENANT = "batch-isolation";

    @Inject
    Fixtures fixtures;

    @Inject
    CoordinatorLoop loop;

    @Inject
    QueueRepository queue;

    @Inject
    RunInbox inbox;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    RunRows rows;

    @Inject
    WorkflowService workflows;

    @Inject
    NodeStatesCodec codec;

    @Inject
    JsonCodec json;

    @Inject
    Clock clock;

    /** A run whose next tick commits (it consumes a stale result) without moving on. */
    private UUID runWithPendingInput() {
        UUID runId = fixtures.start(TENANT, fixtures.chain(TENANT, 2, "ext:batch"));
        QuarkusTransaction.requiringNew().run(() -> inbox.deliver(runId, InboxKind.TASK_RESULT, "result:n0:" + UUID.randomUUID(),
                "n0", 99, null, "{\"completed\":true,\"output\":{}}", clock.instant()));
        return runId;
    }

    private long wakeups(UUID runId) {
        return fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'WAKEUP'", runId);
    }

    @Test
    void aRunThatKeepsLosingNeitherDelaysNorRedeliversTheOthersOfItsBatch() throws Exception {
        UUID losing = runWithPendingInput();
        UUID other = runWithPendingInput();
        long otherVersion = fixtures.version(other);
        // Due long ago, so this round claims them first, the losing run ahead of the other.
        Instant due = clock.instant().minus(Duration.ofDays(1));
        QuarkusTransaction.requiringNew().run(() -> queue.enqueue(List.of(
                NewQueueItem.wakeup(TENANT, "standard", losing, due),
                NewQueueItem.wakeup(TENANT, "standard", other, due.plusMillis(1))), clock.instant()));

        ExecutorService rival = Executors.newSingleThreadExecutor();
        AtomicInteger losingAttempts = new AtomicInteger();
        CountDownLatch otherReached = new CountDownLatch(1);
        AtomicBoolean retryWaitedInVain = new AtomicBoolean();
        List<Long> loadedAt = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> loadedOn = new java.util.concurrent.CopyOnWriteArrayList<>();
        RunLoader slowLoader = new RunLoader() {
            @Override
            public Optional<LoadedRun> load(UUID id) {
                Optional<LoadedRun> loaded = super.load(id);
                if (id.equals(losing)) {
                    loadedAt.add(System.nanoTime());
                    loadedOn.add(Thread.currentThread().getName());
                    if (losingAttempts.incrementAndGet() == 2) {
                        try {
                            retryWaitedInVain.set(!otherReached.await(10, TimeUnit.SECONDS));
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                    // Another session commits the row right after every read: each attempt of this run loses.
                    CompletableFuture.runAsync(() -> bumpVersion(losing), rival).join();
                } else if (id.equals(other)) {
                    otherReached.countDown();
                }
                return loaded;
            }
        };
        RunLoaderWiring.wire(slowLoader, rows, workflows, codec, inbox, json);
        QuarkusMock.installMockForType(slowLoader, RunLoader.class);
        try {
            loop.round();

            assertEquals(0, wakeups(other), "the other run was ticked and its wakeup acknowledged in this round");
            assertEquals(otherVersion + 1, fixtures.version(other), "ticked once");
            assertTrue(!retryWaitedInVain.get(), "the losing run's retry kept the rest of its batch waiting");

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (losingAttempts.get() < 5 || fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1"
                    + " AND kind = 'WAKEUP' AND requeue_count = 1", losing) == 0) {
                assertTrue(System.nanoTime() < deadline, "the losing run was never requeued; attempts " + losingAttempts.get());
                Thread.sleep(20);
            }
            assertEquals(5, losingAttempts.get(), "the seed's five attempts, all lost");
            assertTrue(loadedOn.subList(1, 5).stream().allMatch(name -> name.startsWith("ductor-tick-retry")), loadedOn.toString());
            // Lower bounds only (a loaded machine makes gaps longer, never shorter): the seed's schedule is kept.
            long[] seedDelaysMs = {10, 20, 40, 1000};
            for (int retry = 0; retry < seedDelaysMs.length; retry++) {
                long gapMs = TimeUnit.NANOSECONDS.toMillis(loadedAt.get(retry + 1) - loadedAt.get(retry));
                assertTrue(gapMs >= seedDelaysMs[retry], "retry " + (retry + 1) + " came " + gapMs + " ms after the attempt before it");
            }
            assertEquals(1, wakeups(losing), "then one requeued wakeup, in place of the one it lost");
            assertEquals(0, wakeups(other), "the other run's wakeup never came back");
        } finally {
            rival.shutdownNow();
        }
    }

    private void bumpVersion(UUID runId) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement(
                     "UPDATE eec_workflow_run SET db_record_version = db_record_version + 1 WHERE run_id = ?")) {
            update.setObject(1, runId);
            assertEquals(1, update.executeUpdate());
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
