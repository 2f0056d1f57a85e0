package dev.ductor.error;

/**
 * A versioned write that matched no row, or an append that lost its version: another writer committed first, and
 * nothing of this one was written. Information, not an error: a loop re-reads and tries again, and the API answers
 * the one 409 of {@link VersionConflictException} with the resource read afresh (onLostRace).
 */
public abstract class StaleVersionException extends RuntimeException {

    protected StaleVersionException(String message) {
        super(message, null, false, false);
    }
}
