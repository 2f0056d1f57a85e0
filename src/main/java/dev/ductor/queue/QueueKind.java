package dev.ductor.queue;

/**
 * {@code WAKEUP}: tick this run (never deduplicated: the run's version check is the dedup boundary);
 * {@code TIMER}: tick it with a fired timer once due; {@code TASK}: a step for a worker.
 */
public enum QueueKind {
    WAKEUP, TIMER, TASK
}
