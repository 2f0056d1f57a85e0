package dev.ductor.error;

import java.util.Map;

/**
 * The database could not be reached (restarting, failing over, or no connection to be had): send the request again
 * after Retry-After. Whether it may have been applied is said, since only a connection that broke while the request
 * was committing leaves that open.
 */
public class DatabaseUnavailableException extends DuctorException {

    /** How soon a client may try again: a restart or a failover takes seconds. */
    static final String RETRY_AFTER_SECONDS = "5";

    private final boolean mayHaveBeenApplied;

    public DatabaseUnavailableException(boolean mayHaveBeenApplied, Throwable cause) {
        super(mayHaveBeenApplied
                ? "the connection to the database broke while the request was being committed: it may have been applied."
                + " Read the resource before sending it again, or send it again with the same idempotencyKey."
                : "the database cannot be reached: the request was not applied. Send it again after Retry-After.", cause);
        this.mayHaveBeenApplied = mayHaveBeenApplied;
    }

    @Override
    public int status() {
        return 503;
    }

    @Override
    public String type() {
        return "database-unavailable";
    }

    @Override
    public String title() {
        return "Database unavailable";
    }

    @Override
    public Map<String, Object> extensions() {
        return Map.of("mayHaveBeenApplied", mayHaveBeenApplied);
    }

    @Override
    public Map<String, String> headers() {
        return Map.of("Retry-After", RETRY_AFTER_SECONDS);
    }
}
