package dev.ductor.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.DuctorException;
import dev.ductor.workflow.model.InvalidDefinitionException;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.validation.ElementKind;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.Comparator;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The one place where exceptions become HTTP responses, always as {@code application/problem+json}.
 * A 500 says only that something went wrong and is logged with its cause; everything else says what to do. A client
 * that hung up before its answer is no error of ours: one DEBUG line.
 */
public class ProblemMapper {

    private static final Logger LOG = Logger.getLogger(ProblemMapper.class);
    /** How soon a client may try again while the database is unreachable (a restart or a failover takes seconds). */
    static final String RETRY_AFTER_SECONDS = "5";

    @ServerExceptionMapper
    public Response ductor(DuctorException e, UriInfo uri) {
        return respond(Problem.of(e.type(), e.title(), e.status(), e.getMessage(), path(uri), e.extensions()));
    }

    @ServerExceptionMapper
    public Response invalidDefinition(InvalidDefinitionException e, UriInfo uri) {
        return respond(Problem.of("invalid-definition", "Invalid workflow definition", 422,
                e.getMessage() + ". Nothing was saved.", path(uri), Map.of("violations", e.violations())));
    }

    @ServerExceptionMapper
    public Response unreadableJson(JsonProcessingException e, UriInfo uri) {
        String detail = e instanceof MismatchedInputException mismatch && !mismatch.getPath().isEmpty()
                ? "the body has a value of the wrong type at '" + mismatch.getPathReference() + "'"
                : "the body is not valid JSON: " + e.getOriginalMessage();
        return respond(Problem.of("bad-request", "Bad request", 400, detail, path(uri), Map.of()));
    }

    /**
     * Quarkus ships its own mappers for these Jackson subtypes (plain JSON bodies); the more specific type
     * wins, so they are named here to keep every error problem+json.
     */
    @ServerExceptionMapper
    public Response mismatchedJson(MismatchedInputException e, UriInfo uri) {
        return unreadableJson(e, uri);
    }

    @ServerExceptionMapper
    public Response malformedJson(com.fasterxml.jackson.core.JsonParseException e, UriInfo uri) {
        return unreadableJson(e, uri);
    }

    /**
     * A request body's record ({@link Bodies}) or a path parameter broke a constraint: a 400 naming the field, worded
     * "field + message" ("idempotencyKey must be ..."). One at a time, as a client fixes them, and the same one for the
     * same request: the first by path.
     */
    @ServerExceptionMapper
    public Response invalid(ConstraintViolationException e, UriInfo uri) {
        ConstraintViolation<?> first = e.getConstraintViolations().stream()
                .min(Comparator.comparing(violation -> violation.getPropertyPath().toString())).orElseThrow();
        String field = field(first.getPropertyPath());
        return ductor(new BadRequestException(field, field + " " + first.getMessage()), uri);
    }

    /** {@code nodes.gate.action}: the body's field names and map keys; a parameter's name; no list indexes. */
    private static String field(jakarta.validation.Path path) {
        StringJoiner field = new StringJoiner(".");
        for (jakarta.validation.Path.Node node : path) {
            if (node.getKey() != null) {
                field.add(node.getKey().toString());
            }
            if (node.getKind() == ElementKind.PROPERTY || node.getKind() == ElementKind.PARAMETER) {
                field.add(node.getName());
            }
        }
        return field.toString();
    }

    @ServerExceptionMapper({UnauthorizedException.class, AuthenticationFailedException.class})
    public Response unauthorized(RuntimeException e, UriInfo uri) {
        return Response.fromResponse(respond(Problem.of("unauthorized", "Unauthorized", 401,
                        "a valid bearer token is required (Authorization: Bearer <jwt>)", path(uri), Map.of())))
                .header("WWW-Authenticate", "Bearer").build();
    }

    @ServerExceptionMapper({ForbiddenException.class, jakarta.ws.rs.ForbiddenException.class})
    public Response forbidden(RuntimeException e, UriInfo uri) {
        return respond(Problem.of("forbidden", "Forbidden", 403,
                "your token's role may not do this" + (e.getMessage() == null ? "" : ": " + e.getMessage()), path(uri), Map.of()));
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, UriInfo uri) {
        if (e.getCause() instanceof JsonProcessingException unreadable) {
            return unreadableJson(unreadable, uri); // the JSON reader wraps its parse errors in a plain 400
        }
        int status = e.getResponse().getStatus();
        if (status >= 500) {
            LOG.error("request failed", e);
        }
        String title = Response.Status.fromStatusCode(status) == null ? "Error" : Response.Status.fromStatusCode(status).getReasonPhrase();
        return respond(Problem.of(title.toLowerCase().replace(' ', '-'), title, status,
                e.getMessage() == null ? title : e.getMessage(), path(uri), Map.of()));
    }

    @ServerExceptionMapper
    public Response unexpected(Exception e, UriInfo uri) {
        if (DatabaseOutage.isDataException(e)) {
            // The input holds something PostgreSQL cannot store (a NUL character, say). The transaction rolled back,
            // so nothing was applied.
            return respond(Problem.of("bad-request", "Bad request", 400,
                    "the request holds a value that cannot be stored (for example a NUL character); nothing was applied",
                    path(uri), Map.of()));
        }
        DatabaseOutage.Applied applied = DatabaseOutage.of(e);
        if (applied != null) {
            // Expected while PostgreSQL restarts or is unreachable: one line, the probes and the retries do the rest.
            LOG.warnf("database unreachable, answered 503 to %s: %s", path(uri), rootMessage(e));
            boolean maybe = applied == DatabaseOutage.Applied.MAYBE;
            return Response.fromResponse(respond(Problem.of("database-unavailable", "Database unavailable", 503, maybe
                            ? "the connection to the database broke while the request was being committed: it may have been"
                            + " applied. Read the resource before sending it again, or send it again with the same idempotencyKey."
                            : "the database cannot be reached: the request was not applied. Send it again after Retry-After.",
                            path(uri), Map.of("mayHaveBeenApplied", maybe))))
                    .header("Retry-After", RETRY_AFTER_SECONDS).build();
        }
        if (isClientHangUp(e)) {
            // The client went away before its answer (timeout, cancelled request, closed tab): normal traffic.
            LOG.debugf("client closed the connection before its answer to %s: %s", path(uri), e.getMessage());
            return respond(Problem.of("client-closed", "Client closed request", 499,
                    "the connection was closed before the answer", path(uri), Map.of()));
        }
        LOG.error("unexpected error", e);
        return respond(Problem.of("internal", "Internal error", 500,
                "something went wrong on our side; the request may not have been applied, and it is logged", path(uri), Map.of()));
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    private static boolean isClientHangUp(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof io.vertx.core.http.HttpClosedException || cause instanceof java.nio.channels.ClosedChannelException) {
                return true;
            }
        }
        return false;
    }

    private static Response respond(Problem problem) {
        return Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem).build();
    }

    private static String path(UriInfo uri) {
        return uri == null ? null : uri.getPath();
    }
}
