package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.run.RunStarter;
import dev.ductor.security.CallerContext;
import dev.ductor.error.VersionConflictException;
import dev.ductor.workflow.LostEditRaceException;
import dev.ductor.workflow.StoredWorkflow;
import dev.ductor.workflow.WorkflowService;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.net.URI;
import java.util.List;
import java.util.Map;

@Path("/api/v1/workflows")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "jwt")
public class WorkflowResource {

    @Inject
    WorkflowService workflows;

    @Inject
    RunStarter starter;

    @Inject
    CallerContext caller;

    @PUT
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Create a workflow (201) or store a new revision (200, needs If-Match)")
    public Response put(@PathParam("name") String name, @HeaderParam("If-Match") String ifMatch, JsonNode body) {
        WorkflowNames.check(name);
        java.util.OptionalLong expected = Versions.ifMatch(ifMatch);
        WorkflowService.PutResult result;
        try {
            result = workflows.put(caller.tenant(), name, body, expected);
        } catch (LostEditRaceException lost) {
            StoredWorkflow current = workflows.get(caller.tenant(), name);
            throw new VersionConflictException("Workflow '" + name + "'", lost.sentVersion(), current.version(), current, body);
        }
        Response.ResponseBuilder response = result.created()
                ? Response.created(URI.create("/api/v1/workflows/" + name))
                : Response.ok();
        return response.header("ETag", Versions.etag(result.workflow().version()))
                .entity(result.workflow()).build();
    }

    @GET
    @Path("/{name}")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(summary = "The workflow's current revision, with its version as ETag")
    public Response get(@PathParam("name") String name) {
        StoredWorkflow workflow = workflows.get(caller.tenant(), name);
        return Response.ok(workflow).header("ETag", Versions.etag(workflow.version())).build();
    }

    @GET
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(summary = "All workflows of the caller's tenant")
    public Map<String, List<StoredWorkflow>> list() {
        return Map.of("items", workflows.list(caller.tenant()));
    }

    @POST
    @Path("/{name}/runs")
    @RolesAllowed(Roles.CLIENT)
    @Operation(summary = "Start a run (201); the same idempotencyKey again returns the same run (200)")
    public Response start(@PathParam("name") String name, JsonNode body) {
        RunStarter.Started started = starter.start(caller.tenant(), name, StartRequests.parse(body));
        Response.ResponseBuilder response = started.created()
                ? Response.created(URI.create("/api/v1/runs/" + started.run().runId()))
                : Response.ok().location(URI.create("/api/v1/runs/" + started.run().runId()));
        return response.header("ETag", Versions.etag(started.run().version())).entity(started.run()).build();
    }
}
