package dev.ductor.sdk.worker;

/**
 * Counts since the worker started: tasks claimed, attempts reported completed or failed, results discarded because
 * the lease was lost, and tasks abandoned at the end of a shutdown's grace.
 */
public record WorkerStats(long claimed, long completed, long failed, long leaseLost, long abandoned, int inFlight) {
}
