package dev.ductor.run.coordinator;

import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RunLanesTest {

    private static final UUID RUN = UUID.randomUUID();
    private final AtomicLong ids = new AtomicLong();

    private QueueItem wakeup() {
        return new QueueItem(ids.incrementAndGet(), QueueKind.WAKEUP, "t", "standard", RUN, null, 0, null, null, null, 0,
                UUID.randomUUID(), Instant.EPOCH, 1);
    }

    @Test
    void aSecondThreadHandsItsItemsToTheHolderWhoTicksThemNext() {
        RunLanes lanes = new RunLanes();
        QueueItem first = wakeup();
        QueueItem second = wakeup();
        assertEquals(List.of(first), lanes.enter(RUN, List.of(first)));
        assertEquals(List.of(), lanes.enter(RUN, List.of(second)), "the lane is held: handed over, not ticked here");
        assertEquals(List.of(second), lanes.next(RUN), "the holder ticks what was handed over");
        assertEquals(List.of(), lanes.next(RUN), "nothing more: the lane is free");
        QueueItem third = wakeup();
        assertEquals(List.of(third), lanes.enter(RUN, List.of(third)), "a free lane is taken again");
    }

    @Test
    void aFailedHolderFreesTheLane() {
        RunLanes lanes = new RunLanes();
        lanes.enter(RUN, List.of(wakeup()));
        lanes.enter(RUN, List.of(wakeup()));
        lanes.leave(RUN);
        QueueItem next = wakeup();
        assertEquals(List.of(next), lanes.enter(RUN, List.of(next)));
    }

    /** Threads claiming items for one run: never two ticks at once, and every item ticked exactly once. */
    @Test
    void underContentionOneTickAtATimeAndNoItemLostOrTickedTwice() throws Exception {
        RunLanes lanes = new RunLanes();
        int threads = 4;
        int perThread = 5_000;
        AtomicInteger ticking = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        Set<Long> ticked = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    List<QueueItem> batch = lanes.enter(RUN, List.of(wakeup()));
                    while (!batch.isEmpty()) {
                        if (ticking.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        batch.forEach(item -> {
                            if (!ticked.add(item.id())) {
                                duplicates.incrementAndGet();
                            }
                        });
                        Thread.onSpinWait();
                        ticking.decrementAndGet();
                        batch = lanes.next(RUN);
                    }
                }
            });
            workers.add(worker);
            worker.start();
        }
        go.countDown();
        for (Thread worker : workers) {
            worker.join(60_000);
        }
        assertEquals(0, overlaps.get(), "two threads ticked the run at once");
        assertEquals(0, duplicates.get(), "an item was ticked twice");
        assertEquals(threads * perThread, ticked.size(), "an item handed over was never ticked");
        assertTrue(lanes.enter(RUN, List.of(wakeup())).size() == 1, "the lane is free at the end");
    }
}
