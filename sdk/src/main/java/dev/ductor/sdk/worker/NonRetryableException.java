package dev.ductor.sdk.worker;

/** Thrown by a handler (or found in its cause chain): the attempt fails and no retry follows (a declined card). */
public class NonRetryableException extends RuntimeException {

    public NonRetryableException(String message) {
        super(message);
    }

    public NonRetryableException(String message, Throwable cause) {
        super(message, cause);
    }
}
