package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.VersionConflictException;
import dev.ductor.run.RunConflictException;
import dev.ductor.run.RunOperations;
import dev.ductor.run.RunPatch;
import dev.ductor.run.RunPage;
import dev.ductor.run.RunQueries;
import dev.ductor.run.RunView;
import dev.ductor.run.TransitionView;
import dev.ductor.security.CallerContext;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

@Path("/api/v1/runs")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "jwt")
@RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
public class RunResource {

    @Inject
    RunQueries runs;

    @Inject
    RunOperations operations;

    @Inject
    CallerContext caller;

    @GET
    @Path("/{runId}")
    @Operation(summary = "A run with its nodes; the ETag is its version")
    public Response get(@PathParam("runId") String runId) {
        RunView run = runs.get(caller.tenant(), parse(runId));
        return Response.ok(run).header("ETag", Versions.etag(run.version())).build();
    }

    @GET
    @Operation(summary = "Runs of the caller's tenant, newest first, keyset-paginated")
    public RunPage list(@QueryParam("workflow") String workflow, @QueryParam("status") String status,
                        @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        return runs.list(caller.tenant(), workflow, status, parseLimit(limit), cursor);
    }

    @GET
    @Path("/{runId}/history")
    @Operation(summary = "The run's transitions in seq order")
    public List<TransitionView> history(@PathParam("runId") String runId) {
        return runs.history(caller.tenant(), parse(runId));
    }

    @POST
    @Path("/{runId}/signals")
    @RolesAllowed(Roles.CLIENT)
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Send a signal (202); a repeated idempotencyKey is a no-op (200), delivered once")
    public Response signal(@PathParam("runId") String runId, JsonNode body) {
        CommandBodies.object(body, "{name, payload?, idempotencyKey}");
        CommandBodies.onlyFields(body, Set.of("name", "payload", "idempotencyKey"));
        String name = CommandBodies.requiredText(body, "name", 200);
        String key = CommandBodies.requiredText(body, "idempotencyKey", CommandBodies.MAX_KEY_LENGTH);
        boolean fresh = operations.signal(caller.tenant(), parse(runId), name, CommandBodies.payload(body, "payload"), key);
        return Response.status(fresh ? 202 : 200)
                .entity(Map.of("runId", runId, "signal", name, "idempotencyKey", key, "delivered", fresh ? "accepted" : "duplicate"))
                .build();
    }

    @POST
    @Path("/{runId}/cancel")
    @RolesAllowed(Roles.OPERATOR)
    @Operation(summary = "Cancel a running run (202); the next tick ends it as CANCELLED")
    public Response cancel(@PathParam("runId") String runId) {
        operations.cancel(caller.tenant(), parse(runId), "requested by " + caller.subject());
        return Response.accepted(Map.of("runId", runId, "status", "CANCELLING")).build();
    }

    @PATCH
    @Path("/{runId}")
    @RolesAllowed(Roles.OPERATOR)
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Change a run's tier or retry/skip nodes; needs If-Match with the run's version")
    public Response patch(@PathParam("runId") String runId, @HeaderParam("If-Match") String ifMatch, JsonNode body) {
        UUID id = parse(runId);
        OptionalLong expected = Versions.ifMatch(ifMatch);
        RunPatch patch = CommandBodies.patch(body);
        try {
            RunView run = operations.patch(caller.tenant(), id, expected, patch, body);
            return Response.ok(run).header("ETag", Versions.etag(run.version())).build();
        } catch (RunConflictException lostRace) {
            RunView current = runs.get(caller.tenant(), id);
            throw new VersionConflictException("Run " + id, expected.orElse(-1), current.version(), current, body);
        }
    }

    static UUID parse(String runId) {
        try {
            return UUID.fromString(runId);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("runId", "'" + runId + "' is not a run id (a UUID)");
        }
    }

    private static Integer parseLimit(String limit) {
        if (limit == null) {
            return null;
        }
        try {
            return Integer.parseInt(limit);
        } catch (NumberFormatException e) {
            throw new BadRequestException("limit", "limit must be a whole number");
        }
    }
}
