package dev.ductor.api;

import dev.ductor.queue.DeadLetters;
import dev.ductor.run.ParkedRuns;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import dev.ductor.validation.Constraints.WholeNumber;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import java.util.List;
import java.util.Map;

/** The caller's tenant's poison runs, parked with their wakeups dead-lettered (docs/operations.md, "Poison runs"). */
@Path("/api/v1/dead-letters")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.OPERATOR})
@APIResponse(responseCode = "401", ref = "unauthorized") // and the 403: api/ApiDocumentation
public class DeadLetterResource {

    @Inject
    ParkedRuns parked;

    @Inject
    CallerContext caller;

    @GET
    public Map<String, List<DeadLetters.Summary>> list(@QueryParam("limit") @WholeNumber String limit) {
        return Map.of("items", parked.list(caller.tenant(), limit == null ? null : Integer.valueOf(limit)));
    }
}
