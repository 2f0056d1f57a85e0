package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.Tiers;
import dev.ductor.run.RunStarter;
import dev.ductor.run.StartBatcher;
import dev.ductor.security.CallerContext;
import dev.ductor.workflow.StoredRevision;
import dev.ductor.workflow.StoredWorkflow;
import dev.ductor.error.BadRequestException;
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
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.net.URI;
import java.util.List;
import java.util.Map;

import static dev.ductor.api.ApiDocumentation.JSON;

@Path("/api/v1/workflows")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "jwt")
public class WorkflowResource {

    @Inject
    WorkflowService workflows;

    @Inject
    StartBatcher starts;

    @Inject
    CallerContext caller;

    @Inject
    Tiers tiers;

    @PUT
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Create a workflow (201) or store a new revision (200, needs If-Match)")
    @RequestBody(content = @Content(mediaType = JSON, examples = @ExampleObject(name = "order", ref = "workflow-put")))
    @APIResponse(responseCode = "201", description = "Created: the first revision; ETag is its version",
            content = @Content(mediaType = JSON, examples = @ExampleObject(name = "created", ref = "workflow")))
    @APIResponse(responseCode = "200", description = "A new revision stored; ETag is the new version",
            content = @Content(mediaType = JSON, examples = @ExampleObject(name = "new-revision", ref = "workflow")))
    @APIResponse(responseCode = "400", ref = "bad-request")
    @APIResponse(responseCode = "422", ref = "invalid-definition")
    @APIResponse(responseCode = "409", ref = "workflow-conflict")
    @APIResponse(responseCode = "428", ref = "workflow-precondition")
    public Response put(@PathParam("name") String name, @HeaderParam("If-Match") String ifMatch, JsonNode body) {
        WorkflowNames.check(name);
        java.util.OptionalLong expected = Versions.ifMatch(ifMatch);
        WorkflowService.PutResult result = Versions.saving("Workflow '" + name + "'", expected, body,
                () -> workflows.put(caller.tenant(), name, body, expected), () -> workflows.get(caller.tenant(), name),
                StoredWorkflow::version);
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
    @APIResponse(responseCode = "200", description = "The workflow; ETag is its version",
            content = @Content(mediaType = JSON, examples = @ExampleObject(name = "workflow", ref = "workflow")))
    @APIResponse(responseCode = "404", ref = "workflow-not-found")
    public Response get(@PathParam("name") String name) {
        StoredWorkflow workflow = workflows.get(caller.tenant(), name);
        return Response.ok(workflow).header("ETag", Versions.etag(workflow.version())).build();
    }

    @GET
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(summary = "All workflows of the caller's tenant")
    @APIResponse(responseCode = "200", description = "The tenant's workflows",
            content = @Content(mediaType = JSON, examples = @ExampleObject(name = "workflows", ref = "workflow-list")))
    public Map<String, List<StoredWorkflow>> list() {
        return Map.of("items", workflows.list(caller.tenant()));
    }

    @GET
    @Path("/{name}/revisions")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(summary = "Every accepted revision of the workflow, newest first (revisions are immutable; runs pin one)")
    @APIResponse(responseCode = "200", description = "The revisions, newest first",
            content = @Content(mediaType = JSON, examples = @ExampleObject(name = "revisions", ref = "revisions")))
    @APIResponse(responseCode = "404", ref = "workflow-not-found")
    public Map<String, List<StoredRevision>> revisions(@PathParam("name") String name) {
        return Map.of("items", workflows.revisions(caller.tenant(), name));
    }

    @GET
    @Path("/{name}/revisions/{revision}")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(summary = "One accepted revision of the workflow, as a run pinned to it sees it")
    @APIResponse(responseCode = "200", description = "The revision",
            content = @Content(mediaType = JSON, examples = @ExampleObject(name = "revision", ref = "revision")))
    @APIResponse(responseCode = "400", ref = "bad-request")
    @APIResponse(responseCode = "404", ref = "revision-not-found")
    public StoredRevision revision(@PathParam("name") String name, @PathParam("revision") String revision) {
        int number;
        try {
            number = Integer.parseInt(revision);
        } catch (NumberFormatException e) {
            throw new BadRequestException("revision", "revision must be a positive whole number");
        }
        if (number < 1) {
            throw new BadRequestException("revision", "revision must be a positive whole number");
        }
        return workflows.storedRevision(caller.tenant(), name, number);
    }

    @POST
    @Path("/{name}/runs")
    @RolesAllowed(Roles.CLIENT)
    @Operation(summary = "Start a run (201); the same idempotencyKey and body again returns the same run (200), another body is 422")
    @RequestBody(content = @Content(mediaType = JSON, examples = @ExampleObject(name = "start", ref = "start")))
    @APIResponse(responseCode = "201", description = "Run started; Location: /api/v1/runs/{runId}",
            content = @Content(mediaType = JSON, examples = @ExampleObject(name = "started", ref = "run-started")))
    @APIResponse(responseCode = "200", description = "Same idempotencyKey again: the same run, no second run",
            content = @Content(mediaType = JSON, examples = @ExampleObject(name = "existing", ref = "run")))
    @APIResponse(responseCode = "400", ref = "bad-request")
    @APIResponse(responseCode = "404", ref = "workflow-not-found")
    @APIResponse(responseCode = "422", ref = "idempotency-key-reused")
    public Response start(@PathParam("name") String name, JsonNode body) {
        RunStarter.Started started = starts.start(caller.tenant(), name, StartRequests.parse(body, tiers));
        // The Location is the path itself (RFC 9110 allows a relative reference): resolving it against the request's
        // URI, as Response.created does, was a twentieth of a start's CPU on the hot path.
        return Response.status(started.created() ? Response.Status.CREATED : Response.Status.OK)
                .header("Location", "/api/v1/runs/" + started.run().runId())
                .header("ETag", Versions.etag(started.run().version())).entity(started.run()).build();
    }
}
