package dev.ductor.run;

import java.util.UUID;

/**
 * The versioned commit matched no row: another tick committed first. Information, not an error: the
 * caller re-reads and recomputes. Carries both versions so logs and metrics can say what happened.
 */
public class RunConflictException extends RuntimeException {

    private final UUID runId;
    private final long expectedVersion;
    private final Long actualVersion;

    public RunConflictException(UUID runId, long expectedVersion, Long actualVersion) {
        super("run " + runId + " moved on: expected version " + expectedVersion + ", found " + actualVersion, null, false, false);
        this.runId = runId;
        this.expectedVersion = expectedVersion;
        this.actualVersion = actualVersion;
    }

    public UUID runId() {
        return runId;
    }

    public long expectedVersion() {
        return expectedVersion;
    }

    /** The version found after losing, or null when the run is gone. */
    public Long actualVersion() {
        return actualVersion;
    }
}
