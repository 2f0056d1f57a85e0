package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.error.BadRequestException;
import dev.ductor.run.bulk.BulkActions;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * {@code POST /bulk-actions} {@code {action: cancel|reset|retry-dead-letters, filter: {workflow?, status?, revision?,
 * createdBefore?, createdAfter?, tag?}, dryRun?, toRevision?: "current"}}: a dry run answers the count and a sample; else a
 * durable job the pods work through ({@link BulkActions}), with its progress at {@code GET /bulk-actions/{id}}.
 */
@Tag(name = "Bulk actions", description = "Cancel, reset or retry many runs at once")
@Path("/api/v1/bulk-actions")
@RolesAllowed(Roles.OPERATOR)
@Produces(MediaType.APPLICATION_JSON)
public class BulkActionResource {

    /** The fields a request may have (its schema, BulkActionBody, lists the same: BodySchemasTest). */
    static final Set<String> FIELDS = Set.of("action", "filter", "dryRun", "toRevision");

    @Inject BulkActions bulk;
    @Inject CallerContext caller;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "createBulkAction")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = BulkActionBody.class)))
    // The job and its progress are maps the run/bulk package builds: described as objects, their fields in the examples.
    @APIResponse(responseCode = "200", description = "Dry run: the number of runs the filter matches and a sample of them",
            content = @Content(schema = @Schema(type = SchemaType.OBJECT)))
    @APIResponse(responseCode = "202", content = @Content(schema = @Schema(type = SchemaType.OBJECT)))
    public Response create(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new BadRequestException("action", "send {action: cancel | reset | retry-dead-letters, filter: {...}, dryRun?, toRevision?}");
        }
        for (var names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new BadRequestException(name, "unknown field; a bulk action takes action, filter, dryRun and toRevision");
            }
        }
        String action = body.path("action").asText(null);
        if (action == null || !BulkActions.ACTIONS.contains(action)) {
            throw new BadRequestException("action", "must be cancel, reset or retry-dead-letters");
        }
        JsonNode toRevision = body.get("toRevision");
        boolean toCurrent = toRevision != null && !toRevision.isNull();
        if (toCurrent && !("reset".equals(action) && "current".equals(toRevision.asText()))) {
            throw new BadRequestException("toRevision", "only a reset takes toRevision, and only \"current\"");
        }
        JsonNode dryRun = body.get("dryRun");
        if (dryRun != null && !dryRun.isNull() && !dryRun.isBoolean()) {
            throw new BadRequestException("dryRun", "must be true or false");
        }
        if (body.get("filter") == null || !body.get("filter").isObject()) {
            // Explicit, even when empty: an action on every run of the tenant must be asked for with "filter": {}.
            throw new BadRequestException("filter", "filter is required, an object {workflow?, status?, revision?, tag?,"
                    + " createdBefore?, createdAfter?}; send {} to act on every run");
        }
        BulkActions.Filter filter = BulkActions.Filter.of(body.get("filter"));
        if (dryRun != null && dryRun.asBoolean()) {
            return Response.ok(bulk.preview(caller.tenant(), filter)).build();
        }
        Map<String, Object> job = bulk.create(caller.tenant(), action, filter, toCurrent, body.get("filter"), caller.subject());
        return Response.accepted(job).location(URI.create("/api/v1/bulk-actions/" + job.get("id"))).build();
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getBulkAction")
    public Map<String, Object> get(@PathParam("id") String id) {
        return bulk.progress(caller.tenant(), parse(id));
    }

    @POST
    @Path("/{id}/cancel")
    @Operation(operationId = "cancelBulkAction")
    public Map<String, Object> cancel(@PathParam("id") String id) {
        return bulk.cancel(caller.tenant(), parse(id));
    }

    private static UUID parse(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("id", "'" + id + "' is not a bulk action id (a UUID)");
        }
    }
}
