package dev.ductor.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Refuses request bodies over 1 MiB with a problem document, whatever their size. A Vert.x route just before the HTTP
 * layer's own limit ({@code quarkus.http.limits.max-body-size}), which answers an empty 413 and would otherwise see a
 * body of several megabytes first. Decided from Content-Length, before a byte of the body is read; a body sent in
 * chunks, without one, is held to the same size by the HTTP layer's limit.
 */
@ApplicationScoped
public class BodySizeLimit {

    static final long MAX_BODY_BYTES = 1024 * 1024;

    @Inject
    ObjectMapper json;

    void routes(@Observes Router router) {
        router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1).handler(this::check);
    }

    void check(RoutingContext ctx) {
        String length = ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        long bytes;
        try {
            bytes = length == null ? 0 : Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            bytes = 0; // Vert.x rejects a malformed Content-Length itself
        }
        if (bytes <= MAX_BODY_BYTES) {
            ctx.next();
            return;
        }
        Problem problem = Problem.of("payload-too-large", "Payload too large", 413,
                "the request body is " + bytes + " bytes; the API accepts at most 1 MiB. Nothing was applied.",
                ctx.normalizedPath(), Map.of("maxBytes", MAX_BODY_BYTES));
        try {
            ctx.response().setStatusCode(413)
                    .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                    .putHeader(HttpHeaders.CONNECTION, "close") // the body is never read: the connection cannot be reused
                    .end(json.writeValueAsString(problem));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
