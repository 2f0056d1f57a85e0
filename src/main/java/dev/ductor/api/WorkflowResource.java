package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.Tiers;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.VersionConflictException;
import dev.ductor.run.commit.RunStarter;
import dev.ductor.run.read.RunView;
import dev.ductor.run.commit.StartBatcher;
import dev.ductor.run.commit.StartRequest;
import dev.ductor.run.core.RunTags;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import dev.ductor.validation.Bodies;
import dev.ductor.validation.Constraints.ClientKey;
import dev.ductor.validation.Constraints.KnownTier;
import dev.ductor.validation.Constraints.MaxJsonSize;
import dev.ductor.validation.Constraints.Name;
import dev.ductor.validation.Constraints.Text;
import dev.ductor.workflow.StoredRevision;
import dev.ductor.workflow.StoredWorkflow;
import dev.ductor.workflow.WorkflowDocument;
import dev.ductor.workflow.WorkflowService;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Pattern;
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
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestResponse;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

@Tag(name = "Workflows", description = "Workflow definitions and their revisions; starting runs")
@Path("/api/v1/workflows")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@APIResponse(responseCode = "401", ref = "unauthorized") // and the 403: api/ApiDocumentation
public class WorkflowResource {

    @Inject
    WorkflowService workflows;

    @Inject
    StartBatcher starts;

    @Inject
    CallerContext caller;

    @Inject
    Bodies bodies;

    @PUT
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "putWorkflow")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = WorkflowDocument.class)))
    @APIResponse(responseCode = "201", content = @Content(schema = @Schema(implementation = StoredWorkflow.class)))
    @APIResponse(responseCode = "200", description = "A new revision stored; ETag is the new version",
            content = @Content(schema = @Schema(implementation = StoredWorkflow.class)))
    public Response put(@PathParam("name") @Name String name, @HeaderParam("If-Match") String ifMatch, JsonNode body) {
        OptionalLong expected = Versions.ifMatch(ifMatch);
        WorkflowService.PutResult result = VersionConflictException.onLostRace("Workflow '" + name + "'", expected, body,
                () -> workflows.put(caller.tenant(), name, body, expected), () -> workflows.get(caller.tenant(), name),
                StoredWorkflow::version);
        return Versions.put(result.created(), "/api/v1/workflows/" + name, result.workflow(), result.workflow().version());
    }

    @GET
    @Path("/{name}")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "getWorkflow")
    @APIResponse(responseCode = "200", description = "The workflow; ETag is its version",
            content = @Content(schema = @Schema(implementation = StoredWorkflow.class)))
    public Response get(@PathParam("name") String name) {
        StoredWorkflow workflow = workflows.get(caller.tenant(), name);
        return Versions.tagged(workflow, workflow.version());
    }

    @GET
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "listWorkflows")
    @APIResponse(responseCode = "200", description = "The tenant's workflows",
            content = @Content(schema = @Schema(implementation = WorkflowList.class)))
    public WorkflowList list() {
        return new WorkflowList(workflows.list(caller.tenant()));
    }

    @GET
    @Path("/{name}/revisions")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "listWorkflowRevisions")
    @APIResponse(responseCode = "200", description = "The revisions, newest first",
            content = @Content(schema = @Schema(implementation = RevisionList.class)))
    public RevisionList revisions(@PathParam("name") String name) {
        return new RevisionList(workflows.revisions(caller.tenant(), name));
    }

    @GET
    @Path("/{name}/revisions/{revision}")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "getWorkflowRevision")
    @APIResponse(responseCode = "200", description = "The revision",
            content = @Content(schema = @Schema(implementation = StoredRevision.class)))
    public StoredRevision revision(@PathParam("name") String name, @PathParam("revision")
            @Pattern(regexp = "0*[1-9][0-9]{0,8}", message = "must be a positive whole number") String revision) {
        return workflows.storedRevision(caller.tenant(), name, Integer.parseInt(revision));
    }

    /**
     * Runs on the event loop and waits on no thread: the start joins the next group commit ({@link StartBatcher}) and
     * the answer is written when that group is durable.
     */
    @POST
    @Path("/{name}/runs")
    @RolesAllowed(Roles.CLIENT)
    @Operation(operationId = "startRun")
    @RequestBody(required = false, content = @Content(schema = @Schema(implementation = StartBody.class))) // no body: {}
    @APIResponse(responseCode = "201", content = @Content(schema = @Schema(implementation = RunView.class)))
    @APIResponse(responseCode = "200", description = "Same idempotencyKey again: the same run, no second run",
            content = @Content(schema = @Schema(implementation = RunView.class)))
    public CompletionStage<RestResponse<RunView>> start(@PathParam("name") String name, JsonNode body) {
        return starts.submit(caller.tenant(), name, bodies.readOptional(body, StartBody.class).toRequest())
                .thenApply(WorkflowResource::started);
    }

    private static RestResponse<RunView> started(RunStarter.Started started) {
        // The Location is the path itself (RFC 9110 allows a relative reference): resolving it against the request's
        // URI, as Response.created does, is work every start would pay on the hot path. A RestResponse of RunView,
        // not a Response: its entity type is known when the app is built, so Quarkus REST picks the JSON writer then,
        // not by a lookup over every writer on each start.
        return RestResponse.ResponseBuilder.<RunView>create(started.created() ? RestResponse.Status.CREATED : RestResponse.Status.OK)
                .header("Location", "/api/v1/runs/" + started.run().runId())
                .header("ETag", Versions.etag(started.run().version())).entity(started.run()).build();
    }

    public record WorkflowList(List<StoredWorkflow> items) {
    }

    public record RevisionList(List<StoredRevision> items) {
    }

    /**
     * {@code correlationKey} is what event rules with a {@code signal} action find the run by (aggregate/rule/rules.md);
     * {@code tags} what people find it by ({@code GET /runs?tag=key:value}), checked by {@link RunTags}.
     */
    @RegisterForReflection
    public record StartBody(@MaxJsonSize JsonNode input, @ClientKey String idempotencyKey, @KnownTier String tier,
                            @Text(max = 200) String correlationKey, Map<String, String> tags) {

        StartRequest toRequest() {
            RunTags.Violation bad = RunTags.check(tags);
            if (bad != null) {
                String field = bad.tag() == null ? "tags" : "tags." + bad.tag();
                throw new BadRequestException(field, field + ": " + bad.message() + ". Nothing was started.");
            }
            return new StartRequest(input, idempotencyKey, tier == null ? Tiers.DEFAULT : tier, correlationKey,
                    RunTags.normalized(tags));
        }
    }
}
