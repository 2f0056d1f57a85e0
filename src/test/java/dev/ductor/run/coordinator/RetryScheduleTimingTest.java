package dev.ductor.run.coordinator;

import dev.ductor.config.JsonCodec;
import dev.ductor.run.InboxKind;
import dev.ductor.run.LoadedRun;
import dev.ductor.run.NodeStatesCodec;
import dev.ductor.run.RunConflictException;
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
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Five lost races in a row: the tick is attempted five times, the attempts start no sooner than the seed's
 * schedule allows (0, then 10, 20, 40 ms and 1 s apart, read from recorded timings, not a stopwatch
 * assertion on the whole), and the fifth loss reaches the caller for a requeue.
 *
 * <p>Every race is lost by construction, not by timing: the loader is wrapped so that right after an attempt
 * has read the run, another session commits an UPDATE of the row (a bare version bump: to the tick under
 * test any committed UPDATE is a lost race). Rivals that raced the 10 ms retry through row locks lost that
 * race now and then on a loaded CI machine, and the attempt they missed succeeded.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class RetryScheduleTimingTest {

    private static final String TENANT = "retry-timing";
    private static final long[] SEED_DELAYS_MS = {10, 20, 40, 1000};
    private static final int ATTEMPTS = SEED_DELAYS_MS.length + 1;

    @Inject
    Fixtures fixtures;

    @Inject
    TickRetries retries;

    @Inject
    RunInbox inbox;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    Clock clock;

    @Inject
    RunRows rows;

    @Inject
    WorkflowService workflows;

    @Inject
    NodeStatesCodec codec;

    @Inject
    JsonCodec json;

    @Test
    void fiveLostRacesAreRetriedOnTheSeedScheduleThenReported() throws Exception {
        UUID runId = fixtures.start(TENANT, fixtures.chain(TENANT, 2, "ext:slow"));
        // A stale result: consuming it is a commit, and since no attempt commits it stays pending for the next.
        QuarkusTransaction.requiringNew().run(() -> inbox.deliver(runId, InboxKind.TASK_RESULT, "result:n0:" + UUID.randomUUID(),
                "n0", 99, null, "{\"completed\":true,\"output\":{}}", clock.instant()));
        ExecutorService rivalThread = Executors.newSingleThreadExecutor();
        AtomicInteger racesLost = new AtomicInteger();
        RunLoader racingLoader = new RunLoader() {
            @Override
            public Optional<LoadedRun> load(UUID id) {
                Optional<LoadedRun> loaded = super.load(id);
                // Another thread, so the rival's connection is not enlisted in this attempt's transaction.
                CompletableFuture.runAsync(() -> bumpVersion(id), rivalThread).join();
                racesLost.incrementAndGet();
                return loaded;
            }
        };
        RunLoaderWiring.wire(racingLoader, rows, workflows, codec, inbox, json);
        QuarkusMock.installMockForType(racingLoader, RunLoader.class);
        Attempts attempts = new Attempts();
        try {
            RunConflictException exhausted = assertThrows(RunConflictException.class,
                    () -> retries.tick(runId, List.of(), List.of(), attempts));

            assertEquals(ATTEMPTS, attempts.made(), "five attempts in all");
            assertEquals(ATTEMPTS, racesLost.get());
            List<Long> started = attempts.startedNanos();
            for (int retry = 0; retry < SEED_DELAYS_MS.length; retry++) {
                long gapMs = TimeUnit.NANOSECONDS.toMillis(started.get(retry + 1) - started.get(retry));
                assertTrue(gapMs >= SEED_DELAYS_MS[retry], "retry " + (retry + 1) + " came " + gapMs + " ms after the attempt before it");
            }
            System.out.printf("retry schedule: attempts started at +%s ms%n", started.stream()
                    .map(t -> Long.toString(TimeUnit.NANOSECONDS.toMillis(t - started.get(0)))).toList());
            assertEquals(exhausted.expectedVersion() + 1, exhausted.actualVersion());
        } finally {
            rivalThread.shutdownNow();
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
