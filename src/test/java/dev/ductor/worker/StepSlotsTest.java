package dev.ductor.worker;

import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class StepSlotsTest {

    private static QueueItem task(long id) {
        return new QueueItem(id, QueueKind.TASK, "t", "standard", UUID.randomUUID(), "a", 1, "noop", null, null, 0,
                UUID.randomUUID(), Instant.parse("2026-12-04T12:00:30Z"), 1);
    }

    @Test
    void aPromiseCountsOnlySlotsNeitherRunningNorWaitedForNorPromised() {
        List<QueueItem> started = new ArrayList<>();
        StepSlots slots = new StepSlots(3, started::add);

        assertEquals(2, slots.promise(2));
        assertEquals(1, slots.promise(5), "one slot left unpromised");
        assertEquals(0, slots.promise(1));
        assertEquals(0, slots.unclaimed(), "nothing left for a claim");

        assertTrue(slots.offer(task(1)), "a promised slot is free, so the step starts at once");
        slots.settle(2);
        assertEquals(1, slots.unclaimed(), "one running, one still promised");
        slots.settle(1);
        assertEquals(2, slots.unclaimed());
        assertEquals(1, started.size());
    }

    @Test
    void roomInTheLineIsPromisedBeyondTheFreeSlotsOnlyUpToItsSize() {
        List<QueueItem> started = new ArrayList<>();
        StepSlots slots = new StepSlots(2, started::add);

        assertEquals(2, slots.promise(2, 0));
        assertEquals(0, slots.promise(1, 0), "without room in the line, nothing beyond the free slots");
        assertEquals(2, slots.promise(3, 2), "the line may take two more");
        assertEquals(0, slots.promise(1, 2), "and no more than that");

        assertTrue(slots.offer(task(1)));
        assertTrue(slots.offer(task(2)));
        assertFalse(slots.offer(task(3)), "the steps promised room in the line wait in it");
        assertFalse(slots.offer(task(4)));
        slots.settle(4);
        assertEquals(-2, slots.unclaimed(), "a claim takes nothing while the line is not empty");
        assertEquals(0, slots.promise(1, 2), "the line is full");

        slots.freed();
        slots.freed();
        assertEquals(4, started.size(), "each freed slot went to the next in line");
        assertEquals(0, slots.waiting());
    }

    @Test
    void aStepWithNoFreeSlotWaitsInLineAndTakesTheNextSlotThatFrees() {
        List<QueueItem> started = new ArrayList<>();
        StepSlots slots = new StepSlots(1, started::add);
        QueueItem first = task(1);
        QueueItem second = task(2);
        QueueItem third = task(3);

        assertTrue(slots.offer(first));
        assertFalse(slots.offer(second), "the only slot is taken");
        assertFalse(slots.offer(third));
        assertEquals(2, slots.waiting());
        assertEquals(-2, slots.unclaimed(), "a claim takes nothing while steps wait");
        assertEquals(0, slots.promise(1), "nor does a commit lease to this pod");

        slots.freed();
        assertEquals(List.of(first, second), started, "in the order they lined up");
        assertTrue(slots.withdraw(third), "a step still in line can be taken out");
        assertFalse(slots.withdraw(second), "a started one cannot");
        slots.freed();
        assertEquals(0, slots.waiting());
        assertEquals(1, slots.unclaimed());
    }

    @Test
    void underRacingOffersNoMoreStepsRunThanSlotsAndEveryStepRuns() throws Exception {
        int slotCount = 4;
        int perThread = 2_000;
        int threads = 6;
        // A step holds its slot from the moment StepSlots starts it until it calls freed(): counted there, not
        // while its body happens to run on a step thread (that window is a few instructions, and a step queued in
        // the executor holds a slot without running), so "running" is every slot handed out and not yet given back.
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        Set<Long> ran = ConcurrentHashMap.newKeySet();
        CountDownLatch allRan = new CountDownLatch(threads * perThread);
        ExecutorService stepThreads = Executors.newFixedThreadPool(slotCount * 2);
        StepSlots[] holder = new StepSlots[1];
        Consumer<QueueItem> start = task -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            stepThreads.execute(() -> {
                boolean first = ran.add(task.id());
                running.decrementAndGet(); // before freed(): once the slot is back, another step may start on it
                holder[0].freed();
                if (first) {
                    allRan.countDown(); // after freed(): the last step's slot is back when the test reads the slots
                }
            });
        };
        holder[0] = new StepSlots(slotCount, start);
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService offerers = Executors.newFixedThreadPool(threads);
        List<Long> ids = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            int base = t * perThread;
            offerers.execute(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    long id = base + i;
                    ids.add(id);
                    int promised = holder[0].promise(1);
                    holder[0].offer(task(id));
                    holder[0].settle(promised);
                }
            });
        }
        go.countDown();
        offerers.shutdown();
        assertTrue(offerers.awaitTermination(30, TimeUnit.SECONDS));
        allRan.await(30, TimeUnit.SECONDS);
        stepThreads.shutdown();
        assertEquals(threads * perThread, ran.size(), "every step offered ran");
        assertTrue(mostAtOnce.get() <= slotCount, "at most " + slotCount + " at once, saw " + mostAtOnce.get());
        assertEquals(0, holder[0].waiting());
        assertEquals(slotCount, holder[0].unclaimed(), "every slot back once all have run");
    }
}
