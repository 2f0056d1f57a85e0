package dev.ductor.aggregate;

import dev.ductor.error.StaleVersionException;

/**
 * An append whose expected version is not the stream's current version, or that lost the race to append at
 * it. Nothing was appended. Carries both versions so the caller can say so plainly.
 */
public class AggregateConflictException extends StaleVersionException {

    private final AggregateKey key;
    private final long expectedVersion;
    private final long currentVersion;

    public AggregateConflictException(AggregateKey key, long expectedVersion, long currentVersion) {
        super(key.type() + " '" + key.name() + "' is at version " + currentVersion + ", not " + expectedVersion);
        this.key = key;
        this.expectedVersion = expectedVersion;
        this.currentVersion = currentVersion;
    }

    public AggregateKey key() {
        return key;
    }

    public long expectedVersion() {
        return expectedVersion;
    }

    public long currentVersion() {
        return currentVersion;
    }
}
