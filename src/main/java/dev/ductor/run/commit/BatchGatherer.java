package dev.ductor.run.commit;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * How a group commit forms its groups from what is queued for it, the same for step results ({@code StepReporter}) and
 * for API starts ({@link StartBatcher}): whatever has arrived, up to the most one transaction takes, so a lone item
 * commits at once and a burst shares one commit. Only after a group that was shared, and only with a linger set
 * ({@code ductor.worker.commit-linger}, {@code ductor.starts.linger}), does it wait that long for more to join: under
 * load spread over several pods on few cores a pod's groups stay small; docs/bench-journal/chain3.md has what a
 * linger did there and to a single pod.
 *
 * <p>One instance per committer thread: it remembers whether that thread's last group was shared.
 */
public final class BatchGatherer<T> {

    /** How long a committer waits for a first item before it looks whether it should stop. */
    private static final long POLL_MILLIS = 100;

    private final BlockingQueue<T> queue;
    private final int max;
    private final long lingerNanos;
    private boolean lastShared; // a lone item on a quiet pod commits at once

    public BatchGatherer(BlockingQueue<T> queue, int max, long lingerNanos) {
        this.queue = queue;
        this.max = max;
        this.lingerNanos = lingerNanos;
    }

    /** Fills {@code group} (empty) with the next group; false when nothing arrived for a while. */
    public boolean next(List<T> group) throws InterruptedException {
        T first = queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
        if (first == null) {
            return false;
        }
        group.add(first);
        queue.drainTo(group, max - 1);
        if (lastShared && lingerNanos > 0) {
            linger(queue, group, max, lingerNanos); // items arrive together: let the next ones join
        }
        lastShared = group.size() > 1;
        return true;
    }

    /** Adds to {@code group} what arrives on {@code queue} within {@code nanos}, until it holds {@code max}. */
    static <T> void linger(BlockingQueue<T> queue, List<? super T> group, int max, long nanos)
            throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        long left;
        while (group.size() < max && (left = deadline - System.nanoTime()) > 0) {
            T next = queue.poll(left, TimeUnit.NANOSECONDS);
            if (next == null) {
                return;
            }
            group.add(next);
            queue.drainTo(group, max - group.size());
        }
    }
}
