package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;

/**
 * 503: the server cannot serve now (its database is unreachable, say). {@link #retryAfter()} is how long it asked us
 * to wait; {@link #mayHaveBeenApplied()} whether a write may have been committed all the same (read before resending,
 * or resend with the same idempotency key).
 */
public class ServerUnavailableException extends DuctorException {

    private final Duration retryAfter;

    public ServerUnavailableException(String message, JsonNode problem, Duration retryAfter) {
        super(503, message, problem);
        this.retryAfter = retryAfter;
    }

    /** The server's Retry-After, or null when it sent none. */
    public Duration retryAfter() {
        return retryAfter;
    }

    public boolean mayHaveBeenApplied() {
        return problem() != null && problem().path("mayHaveBeenApplied").asBoolean(false);
    }
}
