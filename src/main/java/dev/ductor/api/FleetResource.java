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
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.time.Instant;
import java.util.List;

import static dev.ductor.api.ApiDocumentation.JSON;

@Path("/api/v1/fleet")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "jwt")
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
    @Operation(summary = "The caller's tenant's load: queue depth and lag per tier, tasks leased now, RUNNING runs,"
            + " and the latest runs Ductor failed itself (stuck or livelock)")
    @APIResponse(responseCode = "200", description = "A snapshot; lagSeconds is how long the oldest due item has waited",
            content = @Content(mediaType = JSON, examples = @ExampleObject(name = "fleet", ref = "fleet")))
    public Fleet get() {
        String tenant = caller.tenant();
        QueueOverview.Snapshot snapshot = queue.of(tenant);
        return new Fleet(snapshot.at(), snapshot.tiers(), snapshot.leasedTasks(), runs.running(tenant),
                forced.recent(tenant, RECENT_FORCED_FAILURES));
    }
}
