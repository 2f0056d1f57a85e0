package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.NamedAggregates;
import dev.ductor.aggregate.rule.RuleService;
import dev.ductor.aggregate.rule.RuleView;
import dev.ductor.error.VersionConflictException;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import dev.ductor.validation.Constraints.Name;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
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

import java.util.List;
import java.util.OptionalLong;

/** Event rules: {@code PUT} creates (201) or replaces (200, needs If-Match) a rule; {@code GET} shows it with its ETag. */
@Tag(name = "Rules", description = "Event rules that start or signal runs")
@Path("/api/v1/rules")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@APIResponse(responseCode = "401", ref = "unauthorized") // and the 403: api/ApiDocumentation
public class RuleResource {

    @Inject
    RuleService rules;

    @Inject
    CallerContext caller;

    @PUT
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "putRule")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = RuleBody.class)))
    @APIResponse(responseCode = "201", content = @Content(schema = @Schema(implementation = RuleView.class)))
    @APIResponse(responseCode = "200", description = "Rule replaced; ETag is its new version",
            content = @Content(schema = @Schema(implementation = RuleView.class)))
    public Response put(@PathParam("name") @Name String name, @HeaderParam("If-Match") String ifMatch, JsonNode body) {
        OptionalLong expected = Versions.ifMatch(ifMatch);
        String tenant = caller.tenant();
        NamedAggregates.Put<RuleView> result = VersionConflictException.onLostRace("Rule '" + name + "'", expected, body,
                () -> rules.put(tenant, name, body, expected, caller.subject()), () -> rules.get(tenant, name), RuleView::version);
        RuleView view = result.view(); // typed here: the JSON body's type stays visible to the native image
        return Versions.put(result.created(), "/api/v1/rules/" + name, view, view.version());
    }

    /**
     * 200 {@code {name, deleted, version}} (the stream's version after the delete); If-Match is required (428 without,
     * 409 stale with {@code current}): a delete is an edit like any other.
     */
    @DELETE
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "deleteRule")
    @APIResponse(responseCode = "200", description = "Deleted: the rule's stream version after the delete",
            content = @Content(schema = @Schema(implementation = Versions.Deleted.class)))
    public Response delete(@PathParam("name") @Name String name, @HeaderParam("If-Match") String ifMatch) {
        OptionalLong expected = Versions.ifMatch(ifMatch);
        String tenant = caller.tenant();
        JsonNode sent = Versions.deleting(name);
        long version = VersionConflictException.onLostRace("Rule '" + name + "'", expected, sent,
                () -> rules.delete(tenant, name, expected, caller.subject(), sent), () -> rules.get(tenant, name), RuleView::version);
        return Response.ok(new Versions.Deleted(name, true, version)).build();
    }

    @GET
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "listRules")
    @APIResponse(responseCode = "200", description = "The tenant's rules, each with its version",
            content = @Content(schema = @Schema(implementation = RuleList.class)))
    public RuleList list() {
        return new RuleList(rules.list(caller.tenant()));
    }

    @GET
    @Path("/{name}")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "getRule")
    @APIResponse(responseCode = "200", description = "The rule; ETag is its version",
            content = @Content(schema = @Schema(implementation = RuleView.class)))
    public Response get(@PathParam("name") String name) {
        RuleView rule = rules.get(caller.tenant(), name);
        return Versions.tagged(rule, rule.version());
    }

    public record RuleList(List<RuleView> items) {
    }
}
