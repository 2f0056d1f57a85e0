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

import dev.ductor.error.PayloadTooLargeException;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import org.jboss.resteasy.reactive.server.vertx.VertxInputStream;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Refuses request bodies over 1 MiB with a problem document, whatever their size and however they are sent.
 * <ul>
 * <li>With a Content-Length: a Vert.x route just before the HTTP layer's own limit
 * ({@code quarkus.http.limits.max-body-size}), which answers an empty 413 and would otherwise see a body of several
 * megabytes first; decided before a byte of the body is read.</li>
 * <li>Sent in chunks, without one: its size is known only as it is read. The HTTP layer's limit would end the answer
 * itself, as a bare 413, from inside the stream the resource reads; so a route right after it takes that limit off
 * such a request, and {@link Reading} counts the bytes as the body is read instead, throwing
 * {@link PayloadTooLargeException} at the first byte past the limit, which {@code ProblemMapper} answers as the same
 * 413 problem (and closes the connection: the rest of the body is never read).</li>
 * </ul>
 */
@ApplicationScoped
public class BodySizeLimit {

    static final long MAX_BODY_BYTES = 1024 * 1024;

    @Inject
    ObjectMapper json;

    void routes(@Observes Router router) {
        router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1).handler(this::check);
        router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT + 1).handler(this::countWhileReading);
    }

    /** The HTTP layer marks a request without a Content-Length for its stream to cut off; {@link Reading} does it here. */
    void countWhileReading(RoutingContext ctx) {
        if (ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH) == null) {
            ctx.remove(VertxInputStream.MAX_REQUEST_SIZE_KEY);
        }
        ctx.next();
    }

    /** Counts a request body's bytes as the resource reads it; past the limit, a 413 problem. */
    @Provider
    public static class Reading implements ReaderInterceptor {

        @Override
        public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
            context.setInputStream(new Bounded(context.getInputStream(), MAX_BODY_BYTES));
            return context.proceed();
        }
    }

    /** An input stream that refuses to read past {@code max} bytes. */
    static final class Bounded extends FilterInputStream {
        private final long max;
        private long read;

        Bounded(InputStream in, long max) {
            super(in);
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int off, int len) throws IOException {
            int n = super.read(buffer, off, len);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            count(skipped);
            return skipped;
        }

        private void count(long n) {
            read += n;
            if (read > max) {
                throw new PayloadTooLargeException(max);
            }
        }
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
