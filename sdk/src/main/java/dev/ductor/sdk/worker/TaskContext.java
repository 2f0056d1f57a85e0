package dev.ductor.sdk.worker;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;

/** What a handler knows about its attempt, and the worker's signals to it. */
public interface TaskContext {

    String taskId();

    String runId();

    String node();

    /** 1 for the first attempt; the same node's later attempts count up. */
    int attempt();

    /** The handler name, {@code ext:<name>}. */
    String handler();

    /** The task's input as sent (null when none). */
    JsonNode rawInput();

    /** When the lease ends unless a heartbeat extends it (the worker heartbeats by itself). */
    Instant leaseExpiresAt();

    /**
     * True once the lease is lost (a heartbeat answered 409: the lease ran out and was reaped, or an operator retried
     * or skipped the node) or the worker gave up on the task at the end of its shutdown grace. The result will not be
     * sent: stop as soon as you can.
     */
    boolean isCancelled();

    /** Why it was cancelled, or null. */
    String cancelReason();

    /** Runs {@code listener} once when the attempt is cancelled (at once if it already is). */
    void onCancel(Runnable listener);

    /**
     * True while the worker shuts down: it claims nothing more and waits for this task within its grace period,
     * heartbeating; finish (or checkpoint and finish) quickly. A task still running at the end of the grace is
     * cancelled and not reported: its lease runs out and the server hands it out again.
     */
    boolean isShuttingDown();
}
