package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.core.RuleValidator;
import dev.ductor.aggregate.rule.EventIngestion;
import dev.ductor.aggregate.rule.EventReceipt;
import dev.ductor.aggregate.rule.IncomingEvent;
import dev.ductor.error.BadRequestException;
import dev.ductor.security.CallerContext;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.util.Set;

/**
 * Events from outside: each is matched against the tenant's rules, which start or signal runs. Accepted once
 * per idempotency key: a re-sent event answers 200 with what the first delivery did, and does nothing.
 */
@Path("/api/v1/events")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "jwt")
@APIResponse(responseCode = "401", ref = "unauthorized")
@APIResponse(responseCode = "403", ref = "forbidden")
public class EventResource {

    private static final int MAX_TYPE_LENGTH = 200;

    @Inject
    EventIngestion ingestion;

    @Inject
    CallerContext caller;

    @POST
    @RolesAllowed(Roles.CLIENT)
    public Response post(JsonNode body) {
        EventReceipt receipt = ingestion.ingest(caller.tenant(), parse(body));
        return Response.status(receipt.duplicate() ? 200 : 202).entity(receipt).build();
    }

    static IncomingEvent parse(JsonNode body) {
        CommandBodies.object(body, "{type, key?, payload?, idempotencyKey}");
        CommandBodies.onlyFields(body, new java.util.TreeSet<>(Set.of("type", "key", "payload", "idempotencyKey")));
        for (String field : Set.of("type", "key", "payload", "idempotencyKey")) {
            String unstorable = RuleValidator.unstorable(body.get(field));
            if (unstorable != null) {
                throw new BadRequestException(field, field + " " + unstorable);
            }
        }
        String type = CommandBodies.requiredText(body, "type", MAX_TYPE_LENGTH);
        String key = null;
        JsonNode keyJson = body.get("key");
        if (keyJson != null && !keyJson.isNull()) {
            if (!keyJson.isTextual() || keyJson.asText().isBlank() || keyJson.asText().length() > CommandBodies.MAX_KEY_LENGTH) {
                throw new BadRequestException("key", "key must be a non-blank string of at most " + CommandBodies.MAX_KEY_LENGTH
                        + " characters");
            }
            key = keyJson.asText();
        }
        String idempotencyKey = CommandBodies.requiredText(body, "idempotencyKey", CommandBodies.MAX_KEY_LENGTH);
        return new IncomingEvent(type, key, CommandBodies.payload(body, "payload"), idempotencyKey);
    }
}
