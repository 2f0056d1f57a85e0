package dev.ductor.worker;

/** A handler's deliberate failure, saying whether another attempt could succeed. */
public class StepFailure extends Exception {

    private final boolean retryable;

    public StepFailure(String message, boolean retryable) {
        super(message);
        this.retryable = retryable;
    }

    public boolean retryable() {
        return retryable;
    }
}
