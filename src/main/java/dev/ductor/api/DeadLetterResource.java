package dev.ductor.api;

import dev.ductor.queue.DeadLetters;
import dev.ductor.run.ParkedRuns;
import dev.ductor.security.CallerContext;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.util.List;
import java.util.Map;

import static dev.ductor.api.ApiDocumentation.JSON;

/** The caller's tenant's poison runs, parked with their wakeups dead-lettered (docs/operations.md, "Poison runs"). */
@Path("/api/v1/dead-letters")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "jwt")
@RolesAllowed({Roles.ADMIN, Roles.OPERATOR})
public class DeadLetterResource {

    @Inject
    ParkedRuns parked;

    @Inject
    CallerContext caller;

    @GET
    @Operation(summary = "Parked runs of the caller's tenant, longest parked first; retry each with POST /runs/{runId}/dead-letters/retry")
    @APIResponse(responseCode = "200", description = "One entry per parked run: its dead-lettered items and why",
            content = @Content(mediaType = JSON, examples = @ExampleObject(name = "parked", ref = "dead-letters")))
    @APIResponse(responseCode = "400", ref = "bad-request")
    public Map<String, List<DeadLetters.Summary>> list(@QueryParam("limit") String limit) {
        return Map.of("items", parked.list(caller.tenant(), RunResource.parseLimit(limit)));
    }
}
