package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.rule.EventIngestion;
import dev.ductor.aggregate.rule.EventReceipt;
import dev.ductor.aggregate.rule.IncomingEvent;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import dev.ductor.validation.Bodies;
import dev.ductor.validation.Constraints.MaxJsonSize;
import dev.ductor.validation.Constraints.Text;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Events from outside: each is matched against the tenant's rules, which start or signal runs. Accepted once
 * per idempotency key: a re-sent event answers 200 with what the first delivery did, and does nothing.
 */
@Tag(name = "Events", description = "Events from outside, matched against the rules")
@Path("/api/v1/events")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@APIResponse(responseCode = "401", ref = "unauthorized") // and the 403: api/ApiDocumentation
public class EventResource {

    @Inject
    EventIngestion ingestion;

    @Inject
    CallerContext caller;

    @Inject
    Bodies bodies;

    @POST
    @RolesAllowed(Roles.CLIENT)
    @Operation(operationId = "publishEvent")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = EventBody.class)))
    @APIResponse(responseCode = "202", content = @Content(schema = @Schema(implementation = EventReceipt.class)))
    @APIResponse(responseCode = "200", description = "Same idempotencyKey again: the first delivery's receipt, nothing done",
            content = @Content(schema = @Schema(implementation = EventReceipt.class)))
    public Response post(JsonNode body) {
        EventBody event = bodies.read(body, EventBody.class);
        EventReceipt receipt = ingestion.ingest(caller.tenant(),
                new IncomingEvent(event.type(), event.key(), event.payload(), event.idempotencyKey()));
        return Response.status(receipt.duplicate() ? 200 : 202).entity(receipt).build();
    }

    @RegisterForReflection
    public record EventBody(@NotNull @Text(max = 200) String type, @Text(max = 200) String key, @MaxJsonSize JsonNode payload,
                            @NotNull @Text(max = 200) String idempotencyKey) {
    }
}
