package dev.ductor.watchdog;

import dev.ductor.run.command.RunPatch;
import dev.ductor.run.command.RunOperations;
import dev.ductor.run.RunInbox;
import dev.ductor.run.InboxKind;
import dev.ductor.run.coordinator.Coordinator;
import dev.ductor.run.core.OperatorActions;
import dev.ductor.support.Fixtures;
import dev.ductor.support.LockHolder;
import dev.ductor.support.ManualCoordination;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The watchdog fails runs nothing can advance, once, and leaves alone every run that can still move. */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class StuckRunWatchdogTest {

    private static final String TENANT = "watchdog";
    /** Past ductor.watchdog.stuck-after (1 h): time is an input, so no test waits for it. */
    private static final Duration LATER = Duration.ofHours(2);

    @Inject
    Fixtures fixtures;

    @Inject
    StuckRunWatchdog watchdog;

    @Inject
    EntityManager em;

    @Inject
    MeterRegistry registry;

    @Inject
    Clock clock;

    @Inject
    RunOperations operations;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    RunInbox inbox;

    @Inject
    Coordinator coordinator;

    /** A run whose running task lost its queue row (an operator deleted it, say): nothing will ever tick it. */
    private UUID runThatLostItsTask() {
        UUID runId = fixtures.start(TENANT, fixtures.chain(TENANT, 2, "ext:nobody"));
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("DELETE FROM eec_queue_item WHERE run_id = ?1")
                .setParameter(1, runId).executeUpdate());
        return runId;
    }

    @Test
    void aRunThatNothingCanAdvanceIsForceFailedAsStuck() {
        UUID stuck = runThatLostItsTask();
        double before = registry.counter("ductor.forced.failures", "reason", "stuck").count();

        List<UUID> failed = watchdog.runOnce(clock.instant().plus(LATER));

        assertTrue(failed.contains(stuck));
        assertEquals("FAILED", fixtures.status(stuck));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1 AND node_id IS NULL"
                + " AND to_state = 'FAILED' AND cause LIKE '%stuck%'", stuck));
        assertTrue(registry.counter("ductor.forced.failures", "reason", "stuck").count() >= before + 1);
    }

    @Test
    void aRunThatWasRecentlyUpdatedIsLeftAlone() {
        UUID recent = runThatLostItsTask();
        assertFalse(watchdog.runOnce(clock.instant()).contains(recent));
        assertEquals("RUNNING", fixtures.status(recent));
    }

    @Test
    void aRunWithWorkQueuedIsNeverStuckHoweverOld() {
        UUID hot = fixtures.start(TENANT, fixtures.chain(TENANT, 2, "ext:busy"));
        assertFalse(watchdog.runOnce(clock.instant().plus(LATER)).contains(hot));
        assertEquals("RUNNING", fixtures.status(hot));
    }

    @Test
    void aRunWaitingForASignalIsNotStuck() {
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"s\",\"type\":\"signal\",\"signal\":\"go\"}]}");
        UUID waiting = fixtures.start(TENANT, workflow);
        assertFalse(watchdog.runOnce(clock.instant().plus(LATER)).contains(waiting));
        assertEquals("RUNNING", fixtures.status(waiting));
    }

    @Test
    void severalPodsRunningTheWatchdogAtOnceFailARunExactlyOnce() throws Exception {
        UUID stuck = runThatLostItsTask();
        Instant later = clock.instant().plus(LATER);
        List<CompletableFuture<List<UUID>>> pods = new ArrayList<>();
        for (int pod = 0; pod < 4; pod++) {
            pods.add(CompletableFuture.supplyAsync(() -> watchdog.runOnce(later)));
        }
        long claimedIt = 0;
        for (CompletableFuture<List<UUID>> pod : pods) {
            claimedIt += pod.get().contains(stuck) ? 1 : 0;
        }
        assertEquals(1, claimedIt, "one pod's terminal tick committed; the others lost the race or found it finished");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1 AND node_id IS NULL"
                + " AND to_state = 'FAILED'", stuck));
    }

    /**
     * The scenario, ordered by the run's row lock: the operator's PATCH retry has written the run (v8) but not
     * committed when the watchdog reads it (v7, stuck) and tries to fail it; the PATCH then commits. The watchdog's
     * verdict was about v7: the rescued run must not be failed by a retry of the verdict on v8.
     */
    @Test
    void anOperatorsRescueBetweenTheVerdictAndTheFailureWins() throws Exception {
        UUID rescued = runThatLostItsTask();
        long seen = fixtures.version(rescued);
        CountDownLatch patchWritten = new CountDownLatch(1);
        CountDownLatch watchdogBlocked = new CountDownLatch(1);
        CompletableFuture<Void> operator = CompletableFuture.runAsync(() -> QuarkusTransaction.requiringNew().run(() -> {
            operations.patch(TENANT, rescued, OptionalLong.of(seen),
                    new RunPatch(null, Map.of("n0", OperatorActions.Action.RETRY)), fixtures.json("{}"));
            patchWritten.countDown();
            await(watchdogBlocked);
        }));
        assertTrue(patchWritten.await(30, TimeUnit.SECONDS));
        CompletableFuture<List<UUID>> pass = CompletableFuture.supplyAsync(() -> watchdog.runOnce(clock.instant().plus(LATER)));
        LockHolder.awaitSomeoneBlocked(dataSource); // the watchdog judged v7 stuck and waits to write it
        watchdogBlocked.countDown();
        operator.get(30, TimeUnit.SECONDS);
        List<UUID> failed = pass.get(30, TimeUnit.SECONDS);

        assertFalse(failed.contains(rescued), "the watchdog's verdict was on the run before the rescue");
        assertEquals("RUNNING", fixtures.status(rescued));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'TASK' AND attempt = 2",
                rescued), "the operator's new attempt stands");
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1 AND to_state = 'FAILED'", rescued));
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Backdates a run as if created and last committed at {@code at}: the watchdog pages by creation, filters by update. */
    private void lastUpdated(UUID runId, Instant at) {
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("UPDATE eec_workflow_run SET created_at = ?2, updated_at = ?2 WHERE run_id = ?1")
                .setParameter(1, runId).setParameter(2, at).executeUpdate());
    }

    private void sql(String statement, UUID runId) {
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery(statement).setParameter(1, runId).executeUpdate());
    }

    /** Runs that cannot be loaded come first in the pass's order; it records and skips them and still reaches the stuck one. */
    @Test
    void aRunThatCannotBeLoadedIsSkippedAndThePassGoesOn() {
        Instant longAgo = Instant.parse("2002-01-01T00:00:00Z");
        UUID corrupt = runThatLostItsTask();
        sql("UPDATE eec_workflow_run SET node_states = jsonb_set(node_states, '{n0,attempts}', '7') WHERE run_id = ?1", corrupt);
        lastUpdated(corrupt, longAgo);
        UUID revisionGone = runThatLostItsTask();
        sql("UPDATE eec_workflow_run SET workflow_revision = 999 WHERE run_id = ?1", revisionGone);
        lastUpdated(revisionGone, longAgo.plusSeconds(1));
        UUID stuck = runThatLostItsTask();
        lastUpdated(stuck, longAgo.plusSeconds(2));
        double before = registry.counter("ductor.watchdog.unloadable").count();
        try {
            List<UUID> failed = watchdog.runOnce(clock.instant());

            assertTrue(failed.contains(stuck), "the pass went on past the runs it could not load");
            assertEquals("FAILED", fixtures.status(stuck));
            assertEquals("RUNNING", fixtures.status(corrupt), "nothing is decided about a run that cannot be read");
            assertEquals("RUNNING", fixtures.status(revisionGone));
            assertEquals(before + 2, registry.counter("ductor.watchdog.unloadable").count());
        } finally {
            // Out of the way of later passes (a status change by hand, as an operator repairing the row would).
            sql("UPDATE eec_workflow_run SET status = 'CANCELLED' WHERE run_id = ?1", corrupt);
            sql("UPDATE eec_workflow_run SET status = 'CANCELLED' WHERE run_id = ?1", revisionGone);
        }
    }

    /** A result sits in the inbox but its wakeup is gone: a wakeup advances the run, so it is woken, not failed. */
    @Test
    void aRunWithPendingInputButNoWakeupIsWokenInsteadOfFailed() {
        UUID runId = runThatLostItsTask();
        QuarkusTransaction.requiringNew().run(() -> inbox.deliver(runId, InboxKind.TASK_RESULT, "result:n0:1", "n0", 1, null,
                "{\"completed\":true,\"output\":{}}", clock.instant()));
        double before = registry.counter("ductor.watchdog.wakeups").count();

        List<UUID> failed = watchdog.runOnce(clock.instant().plus(LATER));

        assertFalse(failed.contains(runId));
        assertEquals("RUNNING", fixtures.status(runId));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'WAKEUP'", runId));
        assertEquals(before + 1, registry.counter("ductor.watchdog.wakeups").count());

        coordinator.process(runId, List.of(fixtures.claimedWakeupOf(runId)));
        assertEquals("SUCCEEDED", fixtures.nodeState(runId, "n0"), "the woken run applied its result");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'TASK' AND node_id = 'n1'", runId));
    }
}
