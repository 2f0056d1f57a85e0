package dev.ductor.run;

import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * This pod's in-process step worker, as a commit that dispatches steps sees it (eager dispatch, see
 * {@link RunOutbox#dispatch}): the commit leases up to the slots it reserved to this pod, and once it has ended
 * hands over what it leased. An interface in {@code run/}, implemented in {@code worker/}, so the run package does
 * not depend on the worker's.
 */
public interface LocalSteps {

    /** No worker here: every step is queued for a claim. */
    LocalSteps NONE = new LocalSteps() {
        @Override
        public Reservation reserveFor(List<NewQueueItem> items, Instant now) {
            return Reservation.NONE;
        }

        @Override
        public void handOver(Reservation reserved, List<QueueItem> leased) {
        }
    };

    /**
     * Reserves, without waiting, a free slot for each of {@code items} that this pod could run now (due, unpooled, of
     * one of its handlers); {@link Reservation#NONE} when there is none.
     */
    Reservation reserveFor(List<NewQueueItem> items, Instant now);

    /**
     * After the reserving transaction ended: runs the steps it leased to this pod (none if it rolled back) and frees
     * the slots it did not use.
     */
    void handOver(Reservation reserved, List<QueueItem> leased);

    /**
     * Slots reserved for the steps a commit dispatches: it leases to {@code owner} at most {@code slots} of them, only
     * those due now, outside any pool, of a handler that {@code runsHere}.
     */
    record Reservation(int slots, Predicate<String> runsHere, String owner, Duration lease) {

        public static final Reservation NONE = new Reservation(0, handler -> false, null, Duration.ZERO);

        boolean takes(NewQueueItem item, Instant now) {
            return item.kind() == QueueKind.TASK && item.pool() == null && !item.availableAt().isAfter(now)
                    && runsHere.test(item.handler());
        }

        /** How many of {@code items} a pod whose handlers are {@code runsHere} could take, slots permitting. */
        public static int wanted(List<NewQueueItem> items, Predicate<String> runsHere, Instant now) {
            Reservation unlimited = new Reservation(Integer.MAX_VALUE, runsHere, null, Duration.ZERO);
            return (int) items.stream().filter(item -> unlimited.takes(item, now)).count();
        }

        /** Splits {@code items} into those the commit leases to this pod (first) and those it queues (second). */
        List<List<NewQueueItem>> split(List<NewQueueItem> items, Instant now) {
            List<NewQueueItem> eager = new ArrayList<>();
            List<NewQueueItem> queued = new ArrayList<>();
            for (NewQueueItem item : items) {
                (eager.size() < slots && takes(item, now) ? eager : queued).add(item);
            }
            return List.of(eager, queued);
        }
    }
}
