package dev.ductor.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.core.AggregateEvent;
import dev.ductor.aggregate.core.PoolCommands;
import dev.ductor.aggregate.pool.PoolService;
import dev.ductor.aggregate.pool.PoolView;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.StaleVersionException;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import dev.ductor.validation.Bodies;
import dev.ductor.validation.Constraints.Name;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.NotNull;
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
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.hibernate.validator.constraints.Range;

import java.util.List;
import java.util.OptionalLong;

/**
 * Pools: how many tasks naming a pool ({@code "pool": "<name>"} on a task node) may be leased at once, across
 * every pod and external worker of the tenant. A pool is event-sourced; its version (the ETag) is its stream's.
 * A task whose pool is not defined is not handed out until the pool is defined: define pools first.
 */
@Tag(name = "Pools", description = "Capacity pools bounding how many tasks of a pool are leased at once")
@Path("/api/v1/pools")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@APIResponse(responseCode = "401", ref = "unauthorized") // and the 403: api/ApiDocumentation
public class PoolResource {

    @Inject
    PoolService pools;

    @Inject
    CallerContext caller;

    @Inject
    Bodies bodies;

    @PUT
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "putPool")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = PoolBody.class)))
    @APIResponse(responseCode = "201", content = @Content(schema = @Schema(implementation = PoolView.class)))
    @APIResponse(responseCode = "200", description = "Pool changed; ETag is its new version",
            content = @Content(schema = @Schema(implementation = PoolView.class)))
    public Response put(@PathParam("name") @Name String name, @HeaderParam("If-Match") String ifMatch, JsonNode body) {
        OptionalLong expected = Versions.ifMatch(ifMatch);
        PoolBody pool = bodies.read(body, PoolBody.class);
        if (body.has("name") && !name.equals(body.get("name").textValue())) {
            throw new BadRequestException("name", "name in the body, when sent, must be the pool's name from the path: " + name);
        }
        String tenant = caller.tenant();
        PoolService.PutResult result;
        try { // not through VersionConflictException.onLostRace: a create that lost to another create has no version, PoolService words that 409
            result = pools.put(tenant, name, pool.capacity().intValue(), pool.paused(), expected, caller.subject(), body);
        } catch (StaleVersionException lost) {
            throw pools.lostRace(tenant, name, expected, body);
        }
        return Versions.put(result.created(), "/api/v1/pools/" + name, result.pool(), result.pool().version());
    }

    /**
     * 200 {@code {name, deleted, version}} (the stream's version after the delete); If-Match is required (428 without,
     * 409 stale with {@code current}): a delete is an edit like any other.
     */
    @DELETE
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "deletePool")
    @APIResponse(responseCode = "200", description = "Deleted: the pool's stream version after the delete",
            content = @Content(schema = @Schema(implementation = Versions.Deleted.class)))
    public Response delete(@PathParam("name") @Name String name, @HeaderParam("If-Match") String ifMatch) {
        OptionalLong expected = Versions.ifMatch(ifMatch);
        String tenant = caller.tenant();
        JsonNode sent = Versions.deleting(name);
        long version;
        try {
            version = pools.delete(tenant, name, expected, caller.subject(), sent);
        } catch (StaleVersionException lost) {
            throw pools.lostRace(tenant, name, expected, sent);
        }
        return Response.ok(new Versions.Deleted(name, true, version)).build();
    }

    @GET
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "listPools")
    @APIResponse(responseCode = "200", description = "The tenant's pools, each with its version",
            content = @Content(schema = @Schema(implementation = PoolList.class)))
    public PoolList list() {
        return new PoolList(pools.list(caller.tenant()));
    }

    @GET
    @Path("/{name}")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "getPool")
    @APIResponse(responseCode = "200", description = "The pool; ETag is its version",
            content = @Content(schema = @Schema(implementation = PoolView.class)))
    public Response get(@PathParam("name") @Name String name) {
        PoolView pool = pools.get(caller.tenant(), name);
        return Versions.tagged(pool, pool.version());
    }

    @GET
    @Path("/{name}/events")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "listPoolEvents")
    @APIResponse(responseCode = "200", description = "The pool's events in version order",
            content = @Content(schema = @Schema(type = SchemaType.ARRAY, implementation = AggregateEvent.class)))
    public List<AggregateEvent> events(@PathParam("name") @Name String name) {
        return pools.events(caller.tenant(), name);
    }

    public record PoolList(List<PoolView> items) {
    }

    /**
     * {@code {capacity, paused?}}; {@code paused} left out keeps the current setting. What a GET shows may be sent back:
     * its read-only fields are let through, and a {@code name} must be the path's.
     */
    @RegisterForReflection
    @JsonIgnoreProperties({"name", "version", "createdAt", "updatedAt"})
    public record PoolBody(@NotNull @Range(min = PoolCommands.MIN_CAPACITY, max = PoolCommands.MAX_CAPACITY,
            message = "must be a whole number from {min} to {max} (the most tasks of this pool leased at once)") Long capacity,
                           Boolean paused) {
    }
}
