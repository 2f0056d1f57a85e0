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
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Room in this pod's line for slots is promised to a quick handler's step only behind quick steps (finding 5 of the
 * review at 8269a5d): behind steps that take seconds it would wait a third of its lease while other pods idle, so it
 * is queued for any pod instead.
 */
@QuarkusTest
@Tag("db")
class LineRoomTest {

    private static final String TENANT = "line-room";

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
    void aQuickStepIsNotPromisedRoomInALineBehindSlowSteps() throws Exception {
        worker.recordPace("noop", 100_000); // noop's steps have been quick lately
        int slots = fillEverySlot("sleep");

        assertEquals(0, worker.reserveFor(List.of(quickStep()), clock.instant()).slots(),
                "a quick step was promised a place in a line behind " + slots + " steps of four seconds");
    }

    @Test
    void aQuickStepIsPromisedRoomInALineBehindQuickSteps() throws Exception {
        worker.recordPace("noop", 100_000);
        fillEverySlot("echo-slowly"); // the steps on the slots count as quick when they start

        assertEquals(1, worker.reserveFor(List.of(quickStep()), clock.instant()).slots(),
                "behind quick steps, waiting in line is shorter than another pod's claim");
    }

    private NewQueueItem quickStep() {
        return NewQueueItem.task(TENANT, "standard", UUID.randomUUID(), "step", 1, "noop", null, "{}", clock.instant());
    }

    /**
     * Puts a step that lasts seconds on every slot of this pod (in a paused pool, so no claim runs them again): of
     * {@code handler} {@code sleep}, or, for {@code echo-slowly}, of {@code sleep} while its pace says quick.
     */
    private int fillEverySlot(String kind) throws Exception {
        QuarkusTransaction.requiringNew().run(() -> {
            if (pools.find(TENANT, "slow").isEmpty()) {
                pools.put(TENANT, "slow", 100, true, OptionalLong.empty(), "test", null);
            }
        });
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"never\"},"
                + "{\"id\":\"step\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"gate\"]}]}");
        if (kind.equals("sleep")) {
            for (int i = 0; i < 200; i++) {
                worker.recordPace("sleep", 4_000_000_000L); // slow, whatever another test recorded
            }
        }
        int slots = config.worker().threads();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (int i = 0; i < slots && System.nanoTime() < deadline; ) {
            UUID runId = fixtures.start(TENANT, workflow);
            NewQueueItem slow = NewQueueItem.task(TENANT, "standard", runId, "step", 1, "sleep", "slow", "{\"ms\": 4000}",
                    clock.instant());
            LocalSteps.Reservation slot = worker.reserveFor(List.of(unpooled(slow)), clock.instant());
            if (slot.slots() == 0) {
                Thread.sleep(5); // a step of an earlier test still ends
                continue;
            }
            QueueItem leased = QuarkusTransaction.requiringNew().call(() ->
                    queue.enqueueLeased(List.of(slow), pod.name(), Duration.ofSeconds(30), clock.instant())).get(0);
            if (kind.equals("echo-slowly")) {
                for (int quick = 0; quick < 200; quick++) {
                    worker.recordPace("sleep", 100_000); // the average forgets the slow steps that ended meanwhile
                }
            }
            worker.handOver(slot, List.of(leased));
            i++;
        }
        return slots;
    }

    /** The reservation only takes unpooled steps; the slow steps' pool only keeps claims off them. */
    private static NewQueueItem unpooled(NewQueueItem item) {
        return NewQueueItem.task(item.tenant(), item.tier(), item.runId(), item.nodeId(), item.attempt(), item.handler(),
                null, item.payload(), item.availableAt());
    }
}
