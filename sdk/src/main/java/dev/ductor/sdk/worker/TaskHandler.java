package dev.ductor.sdk.worker;

/**
 * Runs one task attempt: gets the task's input as {@code I} and returns its output (converted with the worker's
 * ObjectMapper; null for none). Throwing fails the attempt: {@link NonRetryableException} (or the worker's
 * {@code retryable} predicate) decides whether the node's retry policy may try again. Long work should look at
 * {@link TaskContext#isCancelled()} now and then, or be interruptible: a lost lease interrupts the thread.
 */
@FunctionalInterface
public interface TaskHandler<I, O> {

    O handle(I input, TaskContext context) throws Exception;
}
