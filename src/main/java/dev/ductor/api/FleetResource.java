package dev.ductor.api;

import dev.ductor.fleet.FleetHistory;
import dev.ductor.run.read.FleetOverview;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

@Tag(name = "Fleet", description = "The queues and workers at a glance")
@Path("/api/v1/fleet")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
@APIResponse(responseCode = "401", ref = "unauthorized") // and the 403: api/ApiDocumentation
public class FleetResource {

    @Inject
    FleetOverview fleet;

    @Inject
    CallerContext caller;

    @Inject
    FleetHistory history;

    @GET
    @Operation(operationId = "getFleet")
    @APIResponse(responseCode = "200", description = "A snapshot; lagSeconds is how long the oldest due item has waited",
            content = @Content(schema = @Schema(implementation = FleetOverview.Fleet.class)))
    public FleetOverview.Fleet get() {
        return fleet.of(caller.tenant());
    }

    @GET
    @Path("/history")
    @Operation(operationId = "getFleetHistory")
    @APIResponse(responseCode = "200", description = "The last hour, minute by minute: runs started, finished and failed, p50/p99 time to finish, queue depth per tier and the pods alive",
            content = @Content(schema = @Schema(implementation = FleetHistory.History.class)))
    public FleetHistory.History history() {
        return history.of(caller.tenant());
    }
}
