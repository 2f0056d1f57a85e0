package dev.ductor.api;

import dev.ductor.error.BadRequestException;
import dev.ductor.error.StaleVersionException;
import dev.ductor.error.VersionConflictException;

import java.util.OptionalLong;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/** ETag and If-Match: the version in double quotes ({@code "3"}); If-Match also takes a bare number. */
public final class Versions {

    private Versions() {
    }

    public static String etag(long version) {
        return "\"" + version + "\"";
    }

    /**
     * The version a client based its edit on. {@code *} is refused: it would skip the version check, and no
     * write path may do that.
     */
    public static OptionalLong ifMatch(String header) {
        if (header == null || header.isBlank()) {
            return OptionalLong.empty();
        }
        String value = header.trim();
        if (value.startsWith("W/")) {
            value = value.substring(2);
        }
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            value = value.substring(1, value.length() - 1);
        }
        try {
            long version = Long.parseLong(value);
            if (version < 0) {
                throw new NumberFormatException();
            }
            return OptionalLong.of(version);
        } catch (NumberFormatException e) {
            throw new BadRequestException("If-Match", "If-Match must be the ETag you read, like \"3\"; got " + header);
        }
    }

    /**
     * Runs a versioned write. When it loses the race to another writer's commit (any {@link StaleVersionException};
     * its transaction rolled back, nothing was saved), the one 409 answer: the resource as {@code current} reads it now,
     * with its version, beside what was sent.
     */
    public static <T, C> T saving(String what, OptionalLong expected, Object rejected, Supplier<T> write, Supplier<C> current,
                                  ToLongFunction<C> version) {
        try {
            return write.get();
        } catch (StaleVersionException lost) {
            C now = current.get();
            throw new VersionConflictException(what, expected.isPresent() ? expected.getAsLong() : null, version.applyAsLong(now),
                    now, rejected);
        }
    }
}
