package dev.ductor.run;

import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;

import java.time.Instant;
import java.util.List;

/**
 * This pod's in-process step worker, as a commit that dispatches steps sees it (eager dispatch): the commit leases
 * up to the slots it reserved to this pod, and once it has ended hands over what it leased. An interface in
 * {@code run/}, implemented in {@code worker/}, so the run package does not depend on the worker's.
 */
public interface LocalSteps {

    /**
     * Reserves, without waiting, a free slot for each of {@code items} that this pod could run now (due, unpooled, of
     * one of its handlers); {@link GroupCommit.Eager#NONE} when there is none.
     */
    GroupCommit.Eager reserveFor(List<NewQueueItem> items, Instant now);

    /**
     * After the reserving transaction ended: runs the steps it leased to this pod (none if it rolled back) and frees
     * the slots it did not use.
     */
    void handOver(GroupCommit.Eager reserved, List<QueueItem> leased);
}
