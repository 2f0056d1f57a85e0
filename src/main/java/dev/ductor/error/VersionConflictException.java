package dev.ductor.error;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * A write based on a version that is no longer current. Over HTTP it carries the resource as it is now
 * and what the caller sent, so the caller can compare and resend instead of retyping.
 */
public class VersionConflictException extends DuctorException {

    private final Long expectedVersion;
    private final Long currentVersion;
    private final Object current;
    private final Object rejected;

    public VersionConflictException(String what, Long expectedVersion, Long currentVersion, Object current, Object rejected) {
        super(what + " was changed by someone else: you sent version " + expectedVersion + ", it is now at version "
                + currentVersion + ". Your change was NOT saved; review the current state and send it again with"
                + " If-Match: \"" + currentVersion + "\".");
        this.expectedVersion = expectedVersion;
        this.currentVersion = currentVersion;
        this.current = current;
        this.rejected = rejected;
    }

    /** If-Match on a create: a version sent for something that is not there is a 409 (it is gone, or never was). */
    public static void requireNoVersion(String what, OptionalLong ifMatch, Object rejected) {
        if (ifMatch.isPresent()) {
            throw new VersionConflictException(what, ifMatch.getAsLong(), null, null, rejected);
        }
    }

    /**
     * If-Match on an edit: required (428 without it) and equal to the {@code version} the thing is at; otherwise a 409
     * with the thing as {@code current} reads it. {@code what} names it as a sentence starts ("Rule 'x'").
     */
    public static void requireVersion(String what, OptionalLong ifMatch, long version, Supplier<?> current, Object rejected) {
        if (ifMatch.isEmpty()) {
            throw new PreconditionRequiredException(Character.toLowerCase(what.charAt(0)) + what.substring(1));
        }
        if (ifMatch.getAsLong() != version) {
            throw new VersionConflictException(what, ifMatch.getAsLong(), version, current.get(), rejected);
        }
    }

    /**
     * Runs a versioned write. When it loses the race to another writer's commit (any {@link StaleVersionException};
     * its transaction rolled back, nothing was saved), the one 409 answer: the resource as {@code current} reads it now,
     * with its version, beside what was sent.
     */
    public static <T, C> T onLostRace(String what, OptionalLong expected, Object rejected, Supplier<T> write,
                                      Supplier<C> current, ToLongFunction<C> version) {
        try {
            return write.get();
        } catch (StaleVersionException lost) {
            C now = current.get();
            throw new VersionConflictException(what, expected.isPresent() ? expected.getAsLong() : null, version.applyAsLong(now),
                    now, rejected);
        }
    }

    @Override
    public int status() {
        return 409;
    }

    @Override
    public String type() {
        return "version-conflict";
    }

    @Override
    public String title() {
        return "Version conflict";
    }

    @Override
    public Map<String, Object> extensions() {
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("saved", false);
        extensions.put("expectedVersion", expectedVersion);
        extensions.put("currentVersion", currentVersion);
        extensions.put("current", current);
        extensions.put("rejected", rejected);
        return extensions;
    }
}
