package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The root of every error the SDK raises: an HTTP status (0 when no answer arrived) and the server's
 * {@code application/problem+json} body, when it sent one. The message is the problem's {@code detail}, which says
 * what to do.
 */
public class DuctorException extends RuntimeException {

    private final int status;
    private final JsonNode problem;

    public DuctorException(int status, String message, JsonNode problem) {
        super(message);
        this.status = status;
        this.problem = problem;
    }

    public DuctorException(String message, Throwable cause) {
        super(message, cause);
        this.status = 0;
        this.problem = null;
    }

    /** The HTTP status, or 0 when the request got no answer. */
    public int status() {
        return status;
    }

    /** The problem+json body, or null when the server sent none. */
    public JsonNode problem() {
        return problem;
    }

    /** The problem's type without its URI prefix ({@code version-conflict}, {@code lease-lost}...), or null. */
    public String problemType() {
        if (problem == null || !problem.hasNonNull("type")) {
            return null;
        }
        String type = problem.get("type").asText();
        return type.substring(type.lastIndexOf('/') + 1);
    }

    /** Whether trying again later may succeed: no answer at all, or a 5xx. */
    public boolean isTransient() {
        return status == 0 || status >= 500 || status == 429;
    }
}
