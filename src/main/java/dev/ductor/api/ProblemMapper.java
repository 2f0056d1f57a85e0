package dev.ductor.api;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.error.DuctorException;
import dev.ductor.security.CallerContext;
import dev.ductor.security.RoleRequirement;
import dev.ductor.validation.Bodies;
import dev.ductor.validation.Violations;
import dev.ductor.workflow.model.InvalidDefinitionException;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.inject.Inject;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one place where exceptions become HTTP responses, always as {@code application/problem+json}.
 * A 500 says only that something went wrong and is logged with its cause; everything else says what to do. A client
 * that hung up before its answer is no error of ours: one DEBUG line.
 */
public class ProblemMapper {

    private static final Logger LOG = Logger.getLogger(ProblemMapper.class);

    @Inject
    SecurityIdentity identity;

    @ServerExceptionMapper
    public Response ductor(DuctorException e, UriInfo uri) {
        Response answer = respond(Problem.of(e.type(), e.title(), e.status(), e.getMessage(), path(uri), e.extensions()));
        e.headers().forEach(answer.getHeaders()::add);
        return answer;
    }

    @ServerExceptionMapper
    public Response invalidDefinition(InvalidDefinitionException e, UriInfo uri) {
        return respond(Problem.of("invalid-definition", "Invalid workflow definition", 422,
                e.getMessage() + ". Nothing was saved.", path(uri), Map.of("violations", e.violations())));
    }

    /**
     * Quarkus ships its own mappers for two Jackson subtypes (plain JSON bodies); the more specific type wins, so they
     * are named here too, to keep every error problem+json.
     */
    @ServerExceptionMapper({JsonProcessingException.class, MismatchedInputException.class, JsonParseException.class})
    public Response unreadableJson(JsonProcessingException e, UriInfo uri) {
        String detail = e instanceof MismatchedInputException mismatch && !mismatch.getPath().isEmpty()
                ? "the body has a value of the wrong type at '" + mismatch.getPathReference() + "'"
                : "the body is not valid JSON: " + e.getOriginalMessage();
        return respond(Problem.of("bad-request", "Bad request", 400, detail, path(uri), Map.of()));
    }

    /** A path or query parameter broke a constraint (a body's record is checked, and worded alike, by {@link Bodies}). */
    @ServerExceptionMapper
    public Response invalid(ConstraintViolationException e, UriInfo uri) {
        return ductor(Violations.first(e.getConstraintViolations()), uri);
    }

    @ServerExceptionMapper({UnauthorizedException.class, AuthenticationFailedException.class})
    public Response unauthorized(RuntimeException e, UriInfo uri) {
        return Response.fromResponse(respond(Problem.of("unauthorized", "Unauthorized", 401,
                        "a valid bearer token is required (Authorization: Bearer <jwt>)", path(uri), Map.of())))
                .header("WWW-Authenticate", "Bearer").build();
    }

    /**
     * Says which role(s) the route needs and which the token has ({@code neededRoles}, {@code yourRoles}), so the
     * caller knows which token to use. A token without a tenant claim is refused by {@link CallerContext}: its reason.
     */
    @ServerExceptionMapper({ForbiddenException.class, jakarta.ws.rs.ForbiddenException.class})
    public Response forbidden(RuntimeException e, UriInfo uri, ResourceInfo resource) {
        List<String> needed = RoleRequirement.of(resource == null ? null : resource.getResourceMethod());
        List<String> held = RoleRequirement.sorted(identity.isAnonymous() ? Set.of() : identity.getRoles());
        String detail = e instanceof CallerContext.MissingTenantException
                ? "your token's role may not do this: " + e.getMessage()
                : RoleRequirement.explain(needed, held);
        return respond(Problem.of("forbidden", "Forbidden", 403, detail, path(uri), Map.of("neededRoles", needed, "yourRoles", held)));
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
        DuctorException database = DatabaseOutage.answer(e);
        if (database != null) {
            if (database.status() == 503) { // expected while PostgreSQL restarts: one line, the probes and retries do the rest
                LOG.warnf("database unreachable, answered 503 to %s: %s", path(uri), rootMessage(e));
            }
            return ductor(database, uri);
        }
        if (isClientHangUp(e)) {
            // The client went away before its answer (timeout, cancelled request, closed tab): normal traffic.
            LOG.debugf("client closed the connection before its answer to %s: %s", path(uri), e.getMessage());
            return respond(Problem.of("client-closed", "Client closed request", 499,
                    "the connection was closed before the answer", path(uri), Map.of()));
        }
        if (isChunkedBodyTooLarge(e)) {
            // The HTTP layer has already answered 413 and closed the connection: a client's mistake, not ours.
            LOG.debugf("a body sent in chunks passed the HTTP layer's limit on %s", path(uri));
            return respond(Problem.of("payload-too-large", "Payload too large", 413,
                    "the request body is over 1 MiB. Nothing was applied.", path(uri), Map.of()));
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

    /** Vert.x's input stream, reading a body without Content-Length past {@code quarkus.http.limits.max-body-size}. */
    private static boolean isChunkedBodyTooLarge(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.io.IOException && "Request too large".equals(cause.getMessage())) {
                return true;
            }
        }
        return false;
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
