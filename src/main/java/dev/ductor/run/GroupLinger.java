package dev.ductor.run;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The wait of a group commit for more to join it ({@code ductor.worker.commit-linger} for step results,
 * {@code ductor.starts.linger} for starts): a group that lingers a moment commits more at once. Under chain3 with
 * three pods on two cores a pod's group commits averaged 1.6 results; docs/benchmarks.md has what a linger did there
 * and to a single pod.
 */
public final class GroupLinger {

    private GroupLinger() {
    }

    /** Adds to {@code group} what arrives on {@code queue} within {@code nanos}, until it holds {@code max}. */
    public static <T> void fill(BlockingQueue<T> queue, List<? super T> group, int max, long nanos)
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
