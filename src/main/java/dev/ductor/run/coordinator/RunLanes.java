package dev.ductor.run.coordinator;

import dev.ductor.queue.QueueItem;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One coordinator thread at a time per run, within this JVM. A thread that claims wakeups for a run another thread of
 * this pod is ticking hands them over instead of ticking too: the two ticks would load the same version and one of them
 * would lose its race for nothing (under {@code bench/run.sh signals}, two coordinator threads on one hot run lost most
 * of their attempts). The ticking thread takes what was handed over when its tick ends and ticks the run again for all
 * of it at once. Across pods nothing changes: there the versioned commit decides, as always.
 *
 * <p>Nothing handed over is lost: it stays leased in the queue until the tick that consumed it acks it, and if that
 * thread fails, its lease runs out and it is claimed again, as after any failed tick.
 */
final class RunLanes {

    /** Runs being ticked here, each with the items handed over to its ticking thread meanwhile. */
    private final Map<UUID, List<QueueItem>> ticking = new ConcurrentHashMap<>();

    /**
     * Takes the run's lane for {@code items}, or hands them to the thread that holds it. Returns the items to tick now:
     * {@code items} themselves when the lane was free, none when they were handed over.
     */
    List<QueueItem> enter(UUID runId, List<QueueItem> items) {
        boolean[] taken = {false};
        ticking.compute(runId, (id, handed) -> {
            if (handed == null) {
                taken[0] = true;
                return new ArrayList<>();
            }
            handed.addAll(items);
            return handed;
        });
        return taken[0] ? items : List.of();
    }

    /**
     * After a tick by the lane's holder: the items handed over meanwhile, for the holder to tick next (it keeps the
     * lane), or none, and the lane is free again.
     */
    List<QueueItem> next(UUID runId) {
        List<QueueItem> next = new ArrayList<>();
        ticking.compute(runId, (id, handed) -> {
            if (handed == null || handed.isEmpty()) {
                return null;
            }
            next.addAll(handed);
            return new ArrayList<>();
        });
        return next;
    }

    /** Frees the lane after a tick that failed; what was handed over stays leased and comes back with its lease. */
    void leave(UUID runId) {
        ticking.remove(runId);
    }
}
