package dev.ductor.api;

import dev.ductor.queue.DeadLetters;
import dev.ductor.run.command.ParkedRuns;
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
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;

/** The caller's tenant's poison runs, parked with their wakeups dead-lettered (docs/operations.md, "Poison runs"). */
@Tag(name = "Dead letters", description = "Poison runs parked with their wakeups dead-lettered")
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
    @Operation(operationId = "listDeadLetters")
    @APIResponse(responseCode = "200", description = "One entry per parked run: its dead-lettered items and why",
            content = @Content(schema = @Schema(implementation = DeadLetterList.class)))
    public DeadLetterList list(@QueryParam("limit") @WholeNumber String limit) {
        return new DeadLetterList( parked.list(caller.tenant(), limit == null ? null : Integer.valueOf(limit)));
    }

    public record DeadLetterList(List<DeadLetters.Summary> items) {
    }
}
