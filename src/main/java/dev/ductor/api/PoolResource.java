package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.core.AggregateEvent;
import dev.ductor.aggregate.core.PoolCommands;
import dev.ductor.aggregate.pool.PoolService;
import dev.ductor.aggregate.pool.PoolView;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.StaleVersionException;
import dev.ductor.security.CallerContext;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Pools: how many tasks naming a pool ({@code "pool": "<name>"} on a task node) may be leased at once, across
 * every pod and external worker of the tenant. A pool is event-sourced; its version (the ETag) is its stream's.
 * A task whose pool is not defined is not handed out until the pool is defined: define pools first.
 */
@Path("/api/v1/pools")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "jwt")
@APIResponse(responseCode = "401", ref = "unauthorized")
@APIResponse(responseCode = "403", ref = "forbidden")
public class PoolResource {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,100}");
    /** What a client may send: the settings, plus the read-only fields of a GET, so a read pool can be sent back. */
    private static final Set<String> FIELDS = new TreeSet<>(Set.of("capacity", "paused", "name", "version", "createdAt", "updatedAt"));

    @Inject
    PoolService pools;

    @Inject
    CallerContext caller;

    @PUT
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    public Response put(@PathParam("name") String name, @HeaderParam("If-Match") String ifMatch, JsonNode body) {
        checkName(name);
        OptionalLong expected = Versions.ifMatch(ifMatch);
        CommandBodies.object(body, "{capacity, paused?}");
        CommandBodies.onlyFields(body, FIELDS);
        int capacity = capacity(body.get("capacity"));
        Boolean paused = paused(body.get("paused"));
        if (body.has("name") && !(body.get("name").isTextual() && body.get("name").asText().equals(name))) {
            throw new BadRequestException("name", "name in the body, when sent, must be the pool's name from the path: " + name);
        }
        String tenant = caller.tenant();
        PoolService.PutResult result;
        try { // not through Versions.saving: a create that lost to another create has no version, PoolService words that 409
            result = pools.put(tenant, name, capacity, paused, expected, caller.subject(), body);
        } catch (StaleVersionException lost) {
            throw pools.lostRace(tenant, name, expected, body);
        }
        Response.ResponseBuilder response = result.created()
                ? Response.created(URI.create("/api/v1/pools/" + name))
                : Response.ok();
        return response.header("ETag", Versions.etag(result.pool().version())).entity(result.pool()).build();
    }

    @GET
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    public Map<String, List<PoolView>> list() {
        return Map.of("items", pools.list(caller.tenant()));
    }

    @GET
    @Path("/{name}")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    public Response get(@PathParam("name") String name) {
        checkName(name);
        PoolView pool = pools.get(caller.tenant(), name);
        return Response.ok(pool).header("ETag", Versions.etag(pool.version())).build();
    }

    @GET
    @Path("/{name}/events")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    public List<AggregateEvent> events(@PathParam("name") String name) {
        checkName(name);
        return pools.events(caller.tenant(), name);
    }

    private static void checkName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new BadRequestException("name", "a pool name is 1-100 characters of A-Z a-z 0-9 _ . -");
        }
    }

    private static int capacity(JsonNode value) {
        if (value == null || !value.isIntegralNumber() || !value.canConvertToInt()
                || value.intValue() < PoolCommands.MIN_CAPACITY || value.intValue() > PoolCommands.MAX_CAPACITY) {
            throw new BadRequestException("capacity", "capacity must be a whole number from " + PoolCommands.MIN_CAPACITY
                    + " to " + PoolCommands.MAX_CAPACITY + " (the most tasks of this pool leased at once)");
        }
        return value.intValue();
    }

    private static Boolean paused(JsonNode value) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isBoolean()) {
            throw new BadRequestException("paused", "paused must be true or false (leave it out to keep the current setting)");
        }
        return value.booleanValue();
    }
}
