package dev.ductor.run;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The group commit's linger: how long it waits for more results, and that it never overfills a batch. */
@Tag("unit")
class CommitGroupsTest {

    @Test
    void withoutALingerTheBatchIsWhatHadArrived() throws Exception {
        LinkedBlockingQueue<Integer> queue = new LinkedBlockingQueue<>(List.of(2, 3));
        List<Integer> batch = new ArrayList<>(List.of(1));
        queue.drainTo(batch, 9);
        long started = System.nanoTime();
        CommitGroups.linger(queue, batch, 10, 0);
        assertEquals(List.of(1, 2, 3), batch);
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(1), "did not wait");
    }

    @Test
    void aLingerTakesWhatArrivesWithinItAndNotWhatComesAfter() throws Exception {
        LinkedBlockingQueue<Integer> queue = new LinkedBlockingQueue<>();
        Thread producer = new Thread(() -> {
            try {
                Thread.sleep(20);
                queue.add(2);
                Thread.sleep(20);
                queue.add(3);
                Thread.sleep(2_000);
                queue.add(4);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        producer.start();
        List<Integer> batch = new ArrayList<>(List.of(1));
        CommitGroups.linger(queue, batch, 10, TimeUnit.MILLISECONDS.toNanos(1_000));
        producer.interrupt();
        assertEquals(List.of(1, 2, 3), batch, "the two that came within the second, not the one after it");
    }

    @Test
    void aFullBatchStopsTheLingerAndLeavesTheRestQueued() throws Exception {
        LinkedBlockingQueue<Integer> queue = new LinkedBlockingQueue<>(List.of(2, 3, 4, 5));
        List<Integer> batch = new ArrayList<>(List.of(1));
        long started = System.nanoTime();
        CommitGroups.linger(queue, batch, 3, TimeUnit.SECONDS.toNanos(30));
        assertEquals(List.of(1, 2, 3), batch);
        assertEquals(List.of(4, 5), new ArrayList<>(queue));
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(10), "a full batch does not wait out the linger");
    }
}
