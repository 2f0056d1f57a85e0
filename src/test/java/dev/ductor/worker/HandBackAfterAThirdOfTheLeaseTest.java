package dev.ductor.worker;

import dev.ductor.aggregate.pool.PoolService;
import dev.ductor.config.DuctorConfig;
import dev.ductor.config.PodIdentity;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.run.LocalSteps;
import dev.ductor.support.Fixtures;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A task leased to this pod that waits in line a third of its lease without a slot (the one slot runs a long step) is
 * taken out of line and handed back to the queue, unleased and on its first attempt still, for any pod to run: it does
 * not wait here till its lease runs out and the reaper spends an attempt on it.
 */
@QuarkusTest
@TestProfile(HandBackAfterAThirdOfTheLeaseTest.OneSlotShortLease.class)
@Tag("db")
class HandBackAfterAThirdOfTheLeaseTest {

    private static final String TENANT = "hand-back";

    /** One slot, a lease of 3 s (a hand-back after 1 s); no reaper, so only the hand-back can unlease a row. */
    public static class OneSlotShortLease implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "ductor.worker.threads", "1",
                    "ductor.worker.lease", "3s",
                    "ductor.worker.reaper-enabled", "false",
                    "ductor.coordinator.enabled", "false",
                    "ductor.watchdog.enabled", "false");
        }
    }

    @Inject
    Fixtures fixtures;

    @Inject
    InProcessWorker worker;

    @Inject
    QueueRepository queue;

    @Inject
    PoolService pools;

    @Inject
    PodIdentity pod;

    @Inject
    DuctorConfig config;

    @Inject
    Clock clock;

    @Test
    void aTaskThatWaitsAThirdOfItsLeaseForASlotIsHandedBackUnleasedWithNoAttemptSpent() throws Exception {
        assertEquals(1, config.worker().threads());
        Duration lease = config.worker().lease();
        QuarkusTransaction.requiringNew().run(() -> {
            if (pools.find(TENANT, "paused").isEmpty()) {
                pools.put(TENANT, "paused", 100, true, OptionalLong.empty(), "test", null); // keeps every claim off
            }
        });
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"never\"},"
                + "{\"id\":\"step\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"gate\"]}]}");

        // The only slot: a sleep far longer than a third of the lease (its heartbeats keep its own lease).
        NewQueueItem slow = NewQueueItem.task(TENANT, "standard", fixtures.start(TENANT, workflow), "step", 1, "sleep",
                "paused", "{\"ms\": 8000}", clock.instant());
        LocalSteps.Reservation slot = worker.reserveFor(List.of(unpooled(slow)), clock.instant());
        assertEquals(1, slot.slots(), "the slot is free");
        QueueItem sleeping = leaseToThisPod(slow, lease);
        worker.handOver(slot, List.of(sleeping));
        assertTrue(worker.isRunning(sleeping.id()));

        // A second step leased to this pod (as a commit's eager dispatch would) finds no slot and waits in line.
        NewQueueItem waiting = NewQueueItem.task(TENANT, "standard", fixtures.start(TENANT, workflow), "step", 1, "noop",
                "paused", "{}", clock.instant());
        QueueItem inLine = leaseToThisPod(waiting, lease);
        long leasedAt = System.nanoTime();
        worker.runLeased(inLine);
        assertTrue(worker.isRunning(inLine.id()), "in flight: waiting in line for the slot");

        // Until its row is unleased, or the slot frees (then the hand-back did not happen while it waited).
        while (leased(inLine.id()) && worker.isRunning(sleeping.id())) {
            Thread.sleep(20);
        }
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - leasedAt);
        assertTrue(worker.isRunning(sleeping.id()), "the step in line was not handed back while the slot stayed busy");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE id = ?1 AND kind = 'TASK'"
                + " AND lease_token IS NULL AND lease_owner IS NULL AND attempt = 1", inLine.id()),
                "handed back: the same row, unleased, its attempt not spent");
        assertTrue(waitedMs >= lease.toMillis() / 3 - 50, "not before a third of its lease: " + waitedMs + " ms");
        assertTrue(waitedMs < lease.toMillis(), "before its lease ran out: " + waitedMs + " ms");
        assertFalse(worker.isRunning(inLine.id()), "taken out of this pod's line");
    }

    private QueueItem leaseToThisPod(NewQueueItem task, Duration lease) {
        return QuarkusTransaction.requiringNew().call(() ->
                queue.enqueueLeased(List.of(task), pod.name(), lease, clock.instant())).get(0);
    }

    private boolean leased(long id) {
        return fixtures.count("SELECT count(*) FROM eec_queue_item WHERE id = ?1 AND lease_token IS NOT NULL", id) > 0;
    }

    /** The reservation only takes unpooled steps; the paused pool only keeps claims off them. */
    private static NewQueueItem unpooled(NewQueueItem item) {
        return NewQueueItem.task(item.tenant(), item.tier(), item.runId(), item.nodeId(), item.attempt(), item.handler(),
                null, item.payload(), item.availableAt());
    }
}
