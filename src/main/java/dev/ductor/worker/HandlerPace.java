package dev.ductor.worker;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How long each in-process handler's steps have taken lately: a moving average of their run times, so that a commit
 * can tell whether a step it dispatches would wait in this pod's line for milliseconds or for minutes
 * ({@link InProcessWorker#reserveFor}). A handler not seen yet counts as slow.
 */
final class HandlerPace {

    /** Steps that take less than this on average count as quick: a claim by another pod would take longer. */
    static final long QUICK_NANOS = 2_000_000;
    /** Each new run time's weight in the average: about the last ten steps count. */
    private static final double WEIGHT = 0.1;

    private final Map<String, Double> averageNanos = new ConcurrentHashMap<>();

    /** Records that a step of {@code handler} took {@code nanos}. */
    void record(String handler, long nanos) {
        averageNanos.merge(handler, (double) nanos, (average, latest) -> average + WEIGHT * (latest - average));
    }

    /** Whether the steps of {@code handler} have been quick lately. */
    boolean isQuick(String handler) {
        Double average = averageNanos.get(handler);
        return average != null && average < QUICK_NANOS;
    }
}
