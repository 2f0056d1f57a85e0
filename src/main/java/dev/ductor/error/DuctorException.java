package dev.ductor.error;

import java.util.Map;

/**
 * The root of every error Ductor reports to a caller. Each subclass knows its HTTP status, a stable
 * problem type and a message that says what to do; {@code ProblemMapper} is the one place that turns
 * them into RFC 9457 problem details.
 */
public abstract class DuctorException extends RuntimeException {

    protected DuctorException(String message) {
        super(message);
    }

    protected DuctorException(String message, Throwable cause) {
        super(message, cause);
    }

    public abstract int status();

    /** The last segment of the problem type URI, e.g. {@code version-conflict}. */
    public abstract String type();

    public abstract String title();

    /** Extra members of the problem document (ids, current and rejected states, violations). */
    public Map<String, Object> extensions() {
        return Map.of();
    }

    /** Headers of the answer beside the problem document (Retry-After). */
    public Map<String, String> headers() {
        return Map.of();
    }
}
