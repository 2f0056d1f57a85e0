package dev.ductor.run;

import dev.ductor.run.core.Tick;
import dev.ductor.support.Fixtures;
import dev.ductor.support.LockHolder;
import dev.ductor.support.ManualCoordination;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Five lost races in a row: the tick is attempted five times, the attempts start no sooner than the seed's
 * schedule allows (0, then 10, 20, 40 ms and 1 s apart, read from recorded timings, not a stopwatch
 * assertion on the whole), and the fifth loss reaches the caller for a requeue.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
class RetryScheduleTimingTest {

    private static final String TENANT = "retry-timing";
    private static final long[] SEED_DELAYS_MS = {10, 20, 40, 1000};

    @Inject
    Fixtures fixtures;

    @Inject
    RetryingTick retryingTick;

    @Inject
    RunLoader loader;

    @Inject
    RunCommitter committer;

    @Inject
    RunInbox inbox;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    Clock clock;

    private void staleResult(UUID runId) {
        QuarkusTransaction.requiringNew().run(() -> inbox.deliver(runId, InboxKind.TASK_RESULT, "result:n0:" + UUID.randomUUID(),
                "n0", 99, null, "{\"completed\":true,\"output\":{}}", clock.instant()));
    }

    @Test
    void fiveLostRacesAreRetriedOnTheSeedScheduleThenReported() throws Exception {
        UUID runId = fixtures.start(TENANT, fixtures.chain(TENANT, 2, "ext:slow"));
        Attempts attempts = new Attempts();
        staleResult(runId);
        // Another pod wins every race: it commits a (progress-free) tick each time the tick under test has
        // read the run and is about to write it.
        CompletableFuture<Void> rival = CompletableFuture.runAsync(() -> {
            for (int race = 0; race < 5; race++) {
                QuarkusTransaction.requiringNew().run(() -> {
                    LoadedRun loaded = loader.load(runId).orElseThrow();
                    committer.commit(loaded, Tick.tick(loaded.snapshot(), loaded.inbox(), clock.instant()), clock.instant());
                    // Committed together with this win, so the loser's next attempt surely has something to do.
                    inbox.deliver(runId, InboxKind.TASK_RESULT, "result:n0:" + UUID.randomUUID(), "n0", 99, null,
                            "{\"completed\":true,\"output\":{}}", clock.instant());
                    try {
                        LockHolder.awaitSomeoneBlocked(dataSource);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
        });
        // Start once the rival holds the row, so the first attempt reads the old version.
        LockHolder.awaitRowLocked(dataSource);
        RunConflictException exhausted = assertThrows(RunConflictException.class,
                () -> retryingTick.tick(runId, List.of(), List.of(), attempts));
        rival.get(60, TimeUnit.SECONDS);

        assertEquals(5, attempts.made(), "five attempts in all");
        List<Long> started = attempts.startedNanos();
        for (int retry = 0; retry < SEED_DELAYS_MS.length; retry++) {
            long gapMs = TimeUnit.NANOSECONDS.toMillis(started.get(retry + 1) - started.get(retry));
            assertTrue(gapMs >= SEED_DELAYS_MS[retry], "retry " + (retry + 1) + " came " + gapMs + " ms after the attempt before it");
        }
        System.out.printf("retry schedule: attempts started at +%s ms%n", started.stream()
                .map(t -> Long.toString(TimeUnit.NANOSECONDS.toMillis(t - started.get(0)))).toList());
        assertEquals(exhausted.expectedVersion() + 1, exhausted.actualVersion());
    }
}
