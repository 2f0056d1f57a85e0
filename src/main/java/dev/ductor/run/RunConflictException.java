package dev.ductor.run;

import dev.ductor.error.StaleVersionException;

import java.util.UUID;

/**
 * The versioned commit matched no row: another tick committed first. Information, not an error: the
 * caller re-reads and recomputes. Carries both versions so logs and metrics can say what happened.
 */
public class RunConflictException extends StaleVersionException {

    private final UUID runId;
    private final long expectedVersion;
    private final Long actualVersion;
    private final Long actualSeq;

    public RunConflictException(UUID runId, long expectedVersion, Long actualVersion, Long actualSeq) {
        super("run " + runId + " moved on: expected version " + expectedVersion + ", found " + actualVersion);
        this.runId = runId;
        this.expectedVersion = expectedVersion;
        this.actualVersion = actualVersion;
        this.actualSeq = actualSeq;
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

    /**
     * The winner's {@code last_transition_seq}: whether the run moved forward, as opposed to a commit that
     * only consumed stale input. The livelock guard counts requeues without it growing.
     */
    public Long actualSeq() {
        return actualSeq;
    }
}
