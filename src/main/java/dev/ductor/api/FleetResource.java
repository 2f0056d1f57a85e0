package dev.ductor.api;

import dev.ductor.fleet.FleetHistory;
import dev.ductor.run.FleetOverview;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

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
    public FleetOverview.Fleet get() {
        return fleet.of(caller.tenant());
    }

    @GET
    @Path("/history")
    public FleetHistory.History history() {
        return history.of(caller.tenant());
    }
}
