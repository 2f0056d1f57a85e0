package dev.ductor.api;

import dev.ductor.queue.QueueOverview;
import dev.ductor.run.ForcedFailures;
import dev.ductor.run.RunQueries;
import dev.ductor.security.CallerContext;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.time.Instant;
import java.util.List;

@Path("/api/v1/fleet")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "jwt")
@APIResponse(responseCode = "401", ref = "unauthorized")
@APIResponse(responseCode = "403", ref = "forbidden")
@RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
public class FleetResource {

    static final int RECENT_FORCED_FAILURES = 20;

    /** The caller's tenant's view of the fleet right now. */
    public record Fleet(Instant at, List<QueueOverview.TierLoad> tiers, long leasedTasks, long runningRuns,
                        List<ForcedFailures.ForcedFailure> forcedFailures) {
    }

    @Inject
    QueueOverview queue;

    @Inject
    ForcedFailures forced;

    @Inject
    RunQueries runs;

    @Inject
    CallerContext caller;

    @GET
    public Fleet get() {
        String tenant = caller.tenant();
        QueueOverview.Snapshot snapshot = queue.of(tenant);
        return new Fleet(snapshot.at(), snapshot.tiers(), snapshot.leasedTasks(), runs.running(tenant),
                forced.recent(tenant, RECENT_FORCED_FAILURES));
    }
}
