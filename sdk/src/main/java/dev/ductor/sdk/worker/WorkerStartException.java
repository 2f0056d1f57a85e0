package dev.ductor.sdk.worker;

import dev.ductor.sdk.DuctorException;

/**
 * {@link DuctorWorker#start()} could not begin: the server did not answer, or refused the worker's token. The message
 * says which, and what to check; the cause is the SDK's error for the first claim. The worker was not started, and
 * {@code start()} may be called again.
 */
public class WorkerStartException extends DuctorException {

    public WorkerStartException(String message, DuctorException cause) {
        super(cause.status(), message, cause.problem());
        initCause(cause);
    }
}
