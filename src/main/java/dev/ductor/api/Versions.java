package dev.ductor.api;

import dev.ductor.error.BadRequestException;
import jakarta.ws.rs.core.Response;

import java.net.URI;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** ETag and If-Match: the version in double quotes ({@code "3"}); If-Match also takes a bare number. */
public final class Versions {

    /** {@code "3"}, {@code W/"3"} or {@code 3}: a version, quoted or not, weak or not. */
    private static final Pattern ETAG = Pattern.compile("(?:W/)?(\"?)([0-9]{1,18})\\1");

    private Versions() {
    }

    public static String etag(long version) {
        return "\"" + version + "\"";
    }

    /** 200 with {@code entity}, and its {@code version} as the ETag: a GET of one versioned thing. */
    public static Response tagged(Object entity, long version) {
        return Response.ok(entity).header("ETag", etag(version)).build();
    }

    /** The answer to a PUT: 201 with the Location {@code path} when it created the thing, else 200; the ETag is its version. */
    public static Response put(boolean created, String path, Object entity, long version) {
        Response.ResponseBuilder response = created ? Response.created(URI.create(path)) : Response.ok();
        return response.header("ETag", etag(version)).entity(entity).build();
    }

    /**
     * The version a client based its edit on. {@code *} is refused: it would skip the version check, and no
     * write path may do that.
     */
    public static OptionalLong ifMatch(String header) {
        if (header == null || header.isBlank()) {
            return OptionalLong.empty();
        }
        Matcher etag = ETAG.matcher(header.trim());
        if (!etag.matches()) {
            throw new BadRequestException("If-Match", "If-Match must be the ETag you read, like \"3\"; got " + header);
        }
        return OptionalLong.of(Long.parseLong(etag.group(2)));
    }

    /** The answer to a delete of an event-sourced resource: its name and the version its stream ended at. */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record Deleted(String name, boolean deleted, long version) {
    }

    /** What a delete sent, as the 409's {@code rejected}: a DELETE has no body, so its intent in words. */
    public static com.fasterxml.jackson.databind.JsonNode deleting(String name) {
        return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("deleting", name);
    }
}
