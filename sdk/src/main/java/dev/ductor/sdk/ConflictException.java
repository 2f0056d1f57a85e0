package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * 409: the change was not saved. A stale {@code If-Match} ({@code version-conflict}) carries the resource as it is now
 * ({@link #current()}) with its version and what was sent ({@link #rejected()}); a lost task lease ({@code lease-lost})
 * or a finished run ({@code run-terminal}) carries less.
 */
public class ConflictException extends DuctorException {

    public ConflictException(String message, JsonNode problem) {
        super(409, message, problem);
    }

    /** The resource as it is now, or null when the server did not send it. */
    public JsonNode current() {
        JsonNode current = problem() == null ? null : problem().get("current");
        return current == null || current.isNull() ? null : current;
    }

    /** What was sent and not saved, or null. */
    public JsonNode rejected() {
        JsonNode rejected = problem() == null ? null : problem().get("rejected");
        return rejected == null || rejected.isNull() ? null : rejected;
    }

    /** The current version ({@code currentVersion}, else {@code current.version}), or null when unknown. */
    public Long currentVersion() {
        if (problem() != null && problem().hasNonNull("currentVersion")) {
            return problem().get("currentVersion").asLong();
        }
        JsonNode current = current();
        return current != null && current.hasNonNull("version") ? current.get("version").asLong() : null;
    }
}
