package dev.ductor.api;

import dev.ductor.error.BadRequestException;
import dev.ductor.run.RunPage;
import dev.ductor.run.RunQueries;
import dev.ductor.run.RunView;
import dev.ductor.run.TransitionView;
import dev.ductor.security.CallerContext;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.util.List;
import java.util.UUID;

@Path("/api/v1/runs")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "jwt")
@RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
public class RunResource {

    @Inject
    RunQueries runs;

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
