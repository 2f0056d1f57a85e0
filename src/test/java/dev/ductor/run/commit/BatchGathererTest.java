package dev.ductor.run.commit;


import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a committer forms its groups: a lone item commits at once, and only after a group that was shared, with a linger
 * set, does the next group wait that long for more; a linger never overfills a batch.
 */
@Tag("unit")
class BatchGathererTest {

    @Test
    void withoutALingerTheBatchIsWhatHadArrived() throws Exception {
        LinkedBlockingQueue<Integer> queue = new LinkedBlockingQueue<>(List.of(2, 3));
        List<Integer> batch = new ArrayList<>(List.of(1));
        queue.drainTo(batch, 9);
        long started = System.nanoTime();
        BatchGatherer.linger(queue, batch, 10, 0);
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
        BatchGatherer.linger(queue, batch, 10, TimeUnit.MILLISECONDS.toNanos(1_000));
        producer.interrupt();
        assertEquals(List.of(1, 2, 3), batch, "the two that came within the second, not the one after it");
    }

    @Test
    void aFullBatchStopsTheLingerAndLeavesTheRestQueued() throws Exception {
        LinkedBlockingQueue<Integer> queue = new LinkedBlockingQueue<>(List.of(2, 3, 4, 5));
        List<Integer> batch = new ArrayList<>(List.of(1));
        long started = System.nanoTime();
        BatchGatherer.linger(queue, batch, 3, TimeUnit.SECONDS.toNanos(30));
        assertEquals(List.of(1, 2, 3), batch);
        assertEquals(List.of(4, 5), new ArrayList<>(queue));
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(10), "a full batch does not wait out the linger");
    }

    /**
     * A queue whose timed poll never waits: it records how long it was asked to wait and, when it is empty, hands out
     * the next of {@code arriving} as if that item had arrived during the wait.
     */
    private static final class ScriptedQueue extends LinkedBlockingQueue<Integer> {

        final List<Long> waits = new ArrayList<>();
        final Deque<Integer> arriving = new ArrayDeque<>();

        @Override
        public Integer poll(long timeout, TimeUnit unit) {
            waits.add(unit.toNanos(timeout));
            Integer next = super.poll();
            return next != null ? next : arriving.poll();
        }
    }

    private static final long LINGER = TimeUnit.SECONDS.toNanos(5);
    private static final long FIRST_POLL = TimeUnit.MILLISECONDS.toNanos(100);

    private static List<Integer> next(BatchGatherer<Integer> groups) throws InterruptedException {
        List<Integer> group = new ArrayList<>();
        assertTrue(groups.next(group));
        return group;
    }

    @Test
    void aLoneItemOnAQuietQueueCommitsAtOnceEvenWithALinger() throws Exception {
        ScriptedQueue queue = new ScriptedQueue();
        BatchGatherer<Integer> groups = new BatchGatherer<>(queue, 10, LINGER);
        queue.add(1);
        queue.arriving.add(2);

        assertEquals(List.of(1), next(groups), "the first group lingers for nothing");
        assertEquals(List.of(FIRST_POLL), queue.waits, "only the wait for a first item");
    }

    @Test
    void onlyAfterASharedGroupDoesTheNextWaitTheLingerForMore() throws Exception {
        ScriptedQueue queue = new ScriptedQueue();
        BatchGatherer<Integer> groups = new BatchGatherer<>(queue, 10, LINGER);
        queue.addAll(List.of(1, 2));
        assertEquals(List.of(1, 2), next(groups), "what had arrived, shared");
        assertEquals(1, queue.waits.size(), "no linger after nothing");

        queue.add(3);
        queue.arriving.add(4);
        assertEquals(List.of(3, 4), next(groups), "after a shared group, 4 arriving within the linger joins 3");
        assertEquals(4, queue.waits.size(), "the first poll, then the linger's: one that took 4, one that found no more");
        for (long lingered : queue.waits.subList(2, 4)) {
            assertTrue(lingered > 0 && lingered <= LINGER, "waited within the linger: " + queue.waits);
        }

        queue.add(5);
        assertEquals(List.of(5), next(groups), "after a shared group it lingers, but nothing came");
        assertEquals(6, queue.waits.size(), "the first poll, then the linger's poll that found nothing");

        queue.add(6);
        queue.arriving.add(7);
        assertEquals(List.of(6), next(groups), "after a lone group, no linger: 7 is left for the next group");
        assertEquals(7, queue.waits.size());
        assertEquals(List.of(7), next(groups));
    }

    @Test
    void withoutALingerASharedGroupIsNotFollowedByAWait() throws Exception {
        ScriptedQueue queue = new ScriptedQueue();
        BatchGatherer<Integer> groups = new BatchGatherer<>(queue, 10, 0);
        queue.addAll(List.of(1, 2));
        assertEquals(List.of(1, 2), next(groups));
        queue.add(3);
        queue.arriving.add(4);
        assertEquals(List.of(3), next(groups), "no linger set: 4 is left for the next group");
        assertEquals(List.of(FIRST_POLL, FIRST_POLL), queue.waits);
    }
}
