package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.error.BadRequestException;
import dev.ductor.security.CallerContext;
import dev.ductor.worker.ExternalTasks;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** Step workers in any language: claim (with long-poll), heartbeat, complete, fail; fenced by lease tokens. */
@Path("/api/v1/tasks")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "jwt")
@APIResponse(responseCode = "401", ref = "unauthorized")
@APIResponse(responseCode = "403", ref = "forbidden")
@RolesAllowed(Roles.WORKER)
public class TaskResource {

    private static final int MAX_CLAIM = 100;

    @Inject
    ExternalTasks tasks;

    @Inject
    CallerContext caller;

    @POST
    @Path("/claim")
    public List<ExternalTasks.ClaimedTask> claim(JsonNode body) throws InterruptedException {
        CommandBodies.object(body, "{handlers, pool?, workerId, max, waitSeconds?}");
        CommandBodies.onlyFields(body, Set.of("handlers", "pool", "workerId", "max", "waitSeconds"));
        List<String> handlers = handlers(body.get("handlers"));
        String workerId = CommandBodies.requiredText(body, "workerId", 200);
        String pool = body.hasNonNull("pool") ? CommandBodies.requiredText(body, "pool", 200) : null;
        int max = intField(body, "max", 1, MAX_CLAIM, 1);
        Duration wait = Duration.ofSeconds(intField(body, "waitSeconds", 0, tasks.maxWaitSeconds(), 0));
        return tasks.claim(caller.tenant(), handlers, pool, workerId, max, wait);
    }

    @POST
    @Path("/{taskId}/heartbeat")
    public Map<String, Object> heartbeat(@PathParam("taskId") String taskId, JsonNode body) {
        CommandBodies.object(body, "{leaseToken}");
        CommandBodies.onlyFields(body, Set.of("leaseToken"));
        UUID lease = leaseToken(body);
        Instant until = tasks.heartbeat(caller.tenant(), taskId, parseTaskId(taskId), lease);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("taskId", taskId);
        answer.put("leaseExpiresAt", until);
        return answer;
    }

    @POST
    @Path("/{taskId}/complete")
    public Map<String, Object> complete(@PathParam("taskId") String taskId, JsonNode body) {
        CommandBodies.object(body, "{leaseToken, output?}");
        CommandBodies.onlyFields(body, Set.of("leaseToken", "output"));
        UUID lease = leaseToken(body);
        JsonNode output = CommandBodies.payload(body, "output");
        tasks.complete(caller.tenant(), taskId, parseTaskId(taskId), lease, output);
        return Map.of("taskId", taskId, "recorded", true);
    }

    @POST
    @Path("/{taskId}/fail")
    public Map<String, Object> fail(@PathParam("taskId") String taskId, JsonNode body) {
        CommandBodies.object(body, "{leaseToken, error, retryable}");
        CommandBodies.onlyFields(body, Set.of("leaseToken", "error", "retryable"));
        String error = CommandBodies.requiredText(body, "error", 4000);
        JsonNode retryable = body.get("retryable");
        if (retryable != null && !retryable.isBoolean()) {
            throw new BadRequestException("retryable", "retryable must be true or false");
        }
        UUID lease = leaseToken(body);
        tasks.fail(caller.tenant(), taskId, parseTaskId(taskId), lease, error, retryable == null || retryable.asBoolean());
        return Map.of("taskId", taskId, "recorded", true);
    }

    private static List<String> handlers(JsonNode node) {
        if (node == null || !node.isArray() || node.isEmpty() || node.size() > 100) {
            throw new BadRequestException("handlers", "handlers must be a non-empty array of handler names (at most 100)");
        }
        List<String> handlers = new ArrayList<>();
        for (JsonNode handler : node) {
            if (!handler.isTextual() || handler.asText().isBlank() || handler.asText().length() > 200) {
                throw new BadRequestException("handlers", "each handler must be a non-blank string");
            }
            handlers.add(handler.asText());
        }
        return handlers;
    }

    private static int intField(JsonNode body, String field, int min, int max, int fallback) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isIntegralNumber() || value.asLong() < min || value.asLong() > max) {
            throw new BadRequestException(field, field + " must be a whole number from " + min + " to " + max);
        }
        return value.asInt();
    }

    private static UUID leaseToken(JsonNode body) {
        String token = CommandBodies.requiredText(body, "leaseToken", 100);
        try {
            return UUID.fromString(token);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("leaseToken", "leaseToken must be the token the claim returned");
        }
    }

    private static long parseTaskId(String taskId) {
        try {
            return Long.parseLong(taskId);
        } catch (NumberFormatException e) {
            throw new BadRequestException("taskId", "'" + taskId + "' is not a task id");
        }
    }
}
