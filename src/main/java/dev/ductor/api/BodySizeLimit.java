package dev.ductor.api;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.util.Map;

/**
 * Refuses request bodies over 1 MiB with a problem document. Vert.x's own limit
 * ({@code quarkus.http.limits.max-body-size}, set higher) answers with an empty 413 before JAX-RS sees the
 * request, so the API's limit is checked here, from Content-Length, where the answer can say what happened.
 */
public class BodySizeLimit {

    static final long MAX_BODY_BYTES = 1024 * 1024;

    @ServerRequestFilter(preMatching = true)
    public Response check(ContainerRequestContext request) {
        String length = request.getHeaderString(HttpHeaders.CONTENT_LENGTH);
        if (length == null) {
            return null;
        }
        long bytes;
        try {
            bytes = Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            return null; // Vert.x rejects a malformed Content-Length itself
        }
        if (bytes <= MAX_BODY_BYTES) {
            return null;
        }
        Problem problem = Problem.of("payload-too-large", "Payload too large", 413,
                "the request body is " + bytes + " bytes; the API accepts at most 1 MiB. Nothing was applied.",
                request.getUriInfo().getPath(), Map.of("maxBytes", MAX_BODY_BYTES));
        return Response.status(413).type(Problem.MEDIA_TYPE).entity(problem).build();
    }
}
