package dev.ductor.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.error.BadRequestException;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import dev.ductor.validation.Bodies;
import dev.ductor.validation.Constraints.MaxJsonSize;
import dev.ductor.validation.Constraints.Text;
import dev.ductor.worker.ExternalTasks;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.vertx.core.http.HttpServerRequest;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.hibernate.validator.constraints.Range;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Step workers in any language: claim (with long-poll), heartbeat, complete, fail, release; fenced by lease tokens. */
@Tag(name = "Tasks", description = "External step workers: claim, heartbeat, complete, fail, release")
@Path("/api/v1/tasks")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.WORKER)
@APIResponse(responseCode = "401", ref = "unauthorized") // and the 403: api/ApiDocumentation
public class TaskResource {

    private static final int MAX_CLAIM = 100;

    @Inject
    ExternalTasks tasks;

    @Inject
    CallerContext caller;

    @Inject
    Bodies bodies;

    @POST
    @Path("/claim")
    @Operation(operationId = "claimTasks")
    @APIResponse(responseCode = "200", description = "The claimed tasks (empty when none was due within waitSeconds)",
            content = @Content(schema = @Schema(type = SchemaType.ARRAY, implementation = ExternalTasks.ClaimedTask.class)))
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = ClaimBody.class)))
    public List<ExternalTasks.ClaimedTask> claim(JsonNode body, @Context HttpServerRequest request) throws InterruptedException {
        ClaimBody claim = bodies.read(body, ClaimBody.class);
        // A long poll whose client hung up ends, and leases nothing to it: the connection's state says so.
        return tasks.claim(caller.tenant(), caller.subject(), claim.handlers(), claim.pool(), claim.workerId(),
                claim.max() == null ? 1 : claim.max().intValue(),
                Duration.ofSeconds(claim.waitSeconds() == null ? 0 : claim.waitSeconds()),
                () -> request.response().closed());
    }

    @POST
    @Path("/{taskId}/heartbeat")
    @Operation(operationId = "heartbeatTask")
    @APIResponse(responseCode = "200", description = "Lease extended",
            content = @Content(schema = @Schema(implementation = Lease.class)))
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = HeartbeatBody.class)))
    public Lease heartbeat(@PathParam("taskId") String taskId, JsonNode body) {
        UUID lease = bodies.read(body, HeartbeatBody.class).leaseToken();
        return new Lease(taskId, tasks.heartbeat(caller.tenant(), taskId, parseTaskId(taskId), lease));
    }

    public record Lease(String taskId, Instant leaseExpiresAt) {
    }

    @POST
    @Path("/{taskId}/complete")
    @Operation(operationId = "completeTask")
    @APIResponse(responseCode = "200", description = "Completion recorded (a repeated identical completion is applied once); with next in the request, the tasks leased to this worker with it (eager dispatch), as a claim returns them",
            content = @Content(schema = @Schema(implementation = Recorded.class)))
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = CompleteBody.class)))
    public Recorded complete(@PathParam("taskId") String taskId, JsonNode body) {
        CompleteBody complete = bodies.read(body, CompleteBody.class);
        List<ExternalTasks.ClaimedTask> next = tasks.complete(caller.tenant(), taskId, parseTaskId(taskId),
                complete.leaseToken(), complete.output(), complete.next() == null ? List.of() : complete.next().handlers());
        return recorded(taskId, complete.next(), next);
    }

    /** The answer to a report: recorded, and, when it asked ({@code next}), the tasks leased to its worker with it. */
    private static Recorded recorded(String taskId, NextBody asked, List<ExternalTasks.ClaimedTask> next) {
        return new Recorded(taskId, true, asked == null ? null : next);
    }

    /** {@code next} is present only when the report asked for it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Recorded(String taskId, boolean recorded, List<ExternalTasks.ClaimedTask> next) {
    }

    public record Released(String taskId, boolean released) {
    }

    @POST
    @Path("/{taskId}/fail")
    @Operation(operationId = "failTask")
    @APIResponse(responseCode = "200", description = "Failure recorded",
            content = @Content(schema = @Schema(implementation = Recorded.class)))
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = FailBody.class)))
    public Recorded fail(@PathParam("taskId") String taskId, JsonNode body) {
        FailBody fail = bodies.read(body, FailBody.class, "retryable");
        List<ExternalTasks.ClaimedTask> next = tasks.fail(caller.tenant(), taskId, parseTaskId(taskId), fail.leaseToken(),
                fail.error(), fail.retryable() == null || fail.retryable(), fail.next() == null ? List.of() : fail.next().handlers());
        return recorded(taskId, fail.next(), next);
    }

    /**
     * Several results at once (a worker's reporter sends what finished meanwhile): one request and one group commit
     * for all, each result fenced and applied on its own; the answer says per result {@code recorded}, or the problem
     * type its own report would have had ({@code lease-lost}, {@code not-found}), and carries up to {@code next.max}
     * tasks leased to the worker with it. A malformed result refuses the whole batch (400), before anything is applied.
     */
    @POST
    @Path("/report")
    @Operation(operationId = "reportTasks")
    @APIResponse(responseCode = "200", description = "Per result, in order: recorded (also for an identical repeat), or the problem type its own report would have had (lease-lost, not-found); and the tasks leased to this worker with it",
            content = @Content(schema = @Schema(implementation = ExternalTasks.BatchAnswer.class)))
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = ReportBody.class)))
    public ExternalTasks.BatchAnswer report(JsonNode body) {
        ReportBody report = bodies.read(body, ReportBody.class);
        List<ExternalTasks.BatchedResult> batch = new java.util.ArrayList<>(report.results().size());
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < report.results().size(); i++) {
            ReportedResult result = report.results().get(i);
            if (!seen.add(result.taskId())) {
                throw new BadRequestException("results[" + i + "].taskId", "task " + result.taskId() + " is reported twice in one batch");
            }
            batch.add(new ExternalTasks.BatchedResult(result.taskId(), parseTaskId(result.taskId()), result.leaseToken(),
                    result.error() == null, result.output(), result.error(), result.retryable() == null || result.retryable()));
        }
        NextBatchBody next = report.next();
        return tasks.reportBatch(caller.tenant(), batch, next == null ? List.of() : next.handlers(),
                next == null ? 0 : next.max() == null ? batch.size() : next.max().intValue());
    }

    @POST
    @Path("/{taskId}/release")
    @Operation(operationId = "releaseTask")
    @APIResponse(responseCode = "200", description = "The task is queued again; the old lease token no longer holds it (a late report with it is 409)",
            content = @Content(schema = @Schema(implementation = Released.class)))
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = ReleaseBody.class)))
    public Released release(@PathParam("taskId") String taskId, JsonNode body) {
        UUID lease = bodies.read(body, ReleaseBody.class).leaseToken();
        tasks.release(caller.tenant(), taskId, parseTaskId(taskId), lease);
        return new Released(taskId, true);
    }

    /** {@code waitSeconds}' upper bound is configured: {@link ExternalTasks#claim} checks it. */
    @RegisterForReflection
    public record ClaimBody(@NotNull @Size(min = 1, max = 100, message = "must be a non-empty array of handler names (at most {max})")
                            List<@NotNull @Text(max = 200) String> handlers, @Text(max = 200) String pool,
                            @NotNull @Text(max = 200) String workerId,
                            @Range(min = 1, max = MAX_CLAIM, message = "must be a whole number from {min} to {max}") Long max,
                            @Min(value = 0, message = "must be a whole number of seconds, 0 or more") Long waitSeconds) {
    }

    /** The lease token is the one the claim returned: a stale one is refused with 409 (fencing). */
    @RegisterForReflection
    public record HeartbeatBody(@NotNull UUID leaseToken) {
    }

    /** A task handed back unfinished: the token is the claim's; a stale one is 409 and nothing changes. */
    @RegisterForReflection
    public record ReleaseBody(@NotNull UUID leaseToken) {
    }

    /**
     * {@code next}: the worker has a free slot for these handlers once this report is in; the answer may carry a task
     * leased to it (its run's next step, eager dispatch), as a claim's answer would.
     */
    @RegisterForReflection
    public record CompleteBody(@NotNull UUID leaseToken, @MaxJsonSize JsonNode output, @Valid NextBody next) {
    }

    /** {@code retryable} left out (not null) is true: the node's retry policy decides. {@code next} as for a completion. */
    @RegisterForReflection
    public record FailBody(@NotNull UUID leaseToken, @NotNull @Text(max = 4000) String error, Boolean retryable,
                           @Valid NextBody next) {
    }

    /** Results of several tasks, at most 100; {@code next} as for a completion, with how many tasks at most. */
    @RegisterForReflection
    public record ReportBody(@NotNull @Size(min = 1, max = MAX_CLAIM, message = "must be a non-empty array of results (at most {max})")
                             List<@NotNull @Valid ReportedResult> results, @Valid NextBatchBody next) {
    }

    /**
     * One task's result: {@code error} set fails the attempt ({@code retryable} left out is true), else it completed
     * with {@code output}. The lease token is the claim's, as in a single report.
     */
    @RegisterForReflection
    public record ReportedResult(@NotNull @Text(max = 40) String taskId, @NotNull UUID leaseToken, @MaxJsonSize JsonNode output,
                                 @Text(max = 4000) String error, Boolean retryable) {
    }

    /** The handlers the worker has free slots for, and how many tasks it takes at most (default: one per result). */
    @RegisterForReflection
    public record NextBatchBody(@NotNull @Size(min = 1, max = 100, message = "must be a non-empty array of handler names (at most {max})")
                                List<@NotNull @Text(max = 200) String> handlers,
                                @Range(min = 1, max = MAX_CLAIM, message = "must be a whole number from {min} to {max}") Long max) {
    }

    /** The handlers a reporting worker has a free slot for (only {@code ext:<name>}, as in a claim). */
    @RegisterForReflection
    public record NextBody(@NotNull @Size(min = 1, max = 100, message = "must be a non-empty array of handler names (at most {max})")
                           List<@NotNull @Text(max = 200) String> handlers) {
    }

    private static long parseTaskId(String taskId) {
        try {
            return Long.parseLong(taskId);
        } catch (NumberFormatException e) {
            throw new BadRequestException("taskId", "'" + taskId + "' is not a task id");
        }
    }
}
