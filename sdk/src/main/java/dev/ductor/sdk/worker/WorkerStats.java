package dev.ductor.sdk.worker;

/**
 * Counts since the worker started: tasks claimed, attempts reported completed or failed, results discarded because
 * the lease was lost, and tasks abandoned at the end of a shutdown's grace; and the requests that carried them: claims
 * (long polls) and batched reports. Results per report over tasks per claim tell how well batching and the eager
 * next tasks of reports spare the worker its claims.
 */
public record WorkerStats(long claimed, long completed, long failed, long leaseLost, long abandoned, int inFlight,
                          long claimRequests, long reportRequests) {
}
