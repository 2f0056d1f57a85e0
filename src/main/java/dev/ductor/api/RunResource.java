package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.VersionConflictException;
import dev.ductor.run.command.ParkedRuns;
import dev.ductor.run.live.RunEventStreams;
import dev.ductor.run.command.RunOperations;
import dev.ductor.run.read.RunPage;
import dev.ductor.run.command.RunPatch;
import dev.ductor.run.read.RunQueries;
import dev.ductor.run.command.RunReset;
import dev.ductor.run.read.RunTagFilter;
import dev.ductor.run.read.RunView;
import dev.ductor.run.read.TransitionView;
import dev.ductor.run.core.OperatorActions;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import dev.ductor.validation.Bodies;
import dev.ductor.validation.Constraints.ClientKey;
import dev.ductor.validation.Constraints.KnownTier;
import dev.ductor.validation.Constraints.MaxJsonSize;
import dev.ductor.validation.Constraints.Text;
import dev.ductor.validation.Constraints.WholeNumber;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletionStage;

@Tag(name = "Runs", description = "Runs: read, list, history, live events, signals, cancel, patch, reset")
@Path("/api/v1/runs")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
@APIResponse(responseCode = "401", ref = "unauthorized") // and the 403: api/ApiDocumentation
public class RunResource {

    @Inject
    RunQueries runs;

    @Inject
    RunOperations operations;

    @Inject
    CallerContext caller;

    @Inject
    ParkedRuns parked;

    @Inject
    RunEventStreams streams;

    @Inject
    Bodies bodies;

    @GET
    @Path("/{runId}")
    @Operation(operationId = "getRun")
    @APIResponse(responseCode = "200", description = "The run; ETag is its version",
            content = @Content(schema = @Schema(implementation = RunView.class)))
    public Response get(@PathParam("runId") String runId) {
        RunView run = runs.get(caller.tenant(), parse(runId));
        return Versions.tagged(run, run.version());
    }

    @GET
    @Operation(operationId = "listRuns")
    @APIResponse(responseCode = "200", description = "One page of run summaries; nextCursor is absent on the last page",
            content = @Content(schema = @Schema(implementation = RunPage.class)))
    public RunPage list(@QueryParam("workflow") String workflow, @QueryParam("status") String status,
                        @QueryParam("idempotencyKey") String idempotencyKey, @QueryParam("tag") List<String> tags,
                        @QueryParam("runId") String runId,
                        @QueryParam("limit") @WholeNumber String limit, @QueryParam("cursor") String cursor) {
        return runs.list(caller.tenant(), workflow, status, idempotencyKey, RunTagFilter.of(tags, "tag"), runId,
                limit == null ? null : Integer.valueOf(limit), cursor);
    }

    @GET
    @Path("/{runId}/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(operationId = "streamRunEvents")
    @APIResponse(responseCode = "200", content = @Content(mediaType = MediaType.SERVER_SENT_EVENTS, schema = @Schema(implementation = RunView.class)))
    public void events(@PathParam("runId") String runId, @HeaderParam("Last-Event-ID") String lastEventId,
                       @Context SseEventSink sink, @Context Sse sse) {
        streams.open(caller.tenant(), caller.subject(), parse(runId), parseLastEventId(lastEventId), new RunEvents(sink, sse));
    }

    /** One stream as server-sent events: event {@code run}, {@code id:} its version, the JSON of GET /runs/{id} as data. */
    private record RunEvents(SseEventSink sink, Sse sse) implements RunEventStreams.Sink {

        @Override
        public CompletionStage<?> send(RunView run) {
            return sink.send(sse.newEventBuilder().name("run").id(Long.toString(run.version()))
                    .mediaType(MediaType.APPLICATION_JSON_TYPE).data(RunView.class, run).build());
        }

        @Override
        public CompletionStage<?> heartbeat() {
            return sink.send(sse.newEventBuilder().comment("heartbeat").build());
        }

        @Override
        public boolean isClosed() {
            return sink.isClosed();
        }

        @Override
        public void close() {
            if (!sink.isClosed()) {
                sink.close();
            }
        }
    }

    /**
     * One page of the run's transitions, in seq order. The body stays the JSON array the contract has always answered
     * (so a client that reads it as the history keeps working on every run of at most one page), and the next page is
     * named the way GitHub's API does it, by an RFC 8288 {@code Link: <...?after=<seq>&limit=<n>>; rel="next"} header,
     * present only when later transitions exist: wrapping the array in an object would have broken every client.
     */
    @GET
    @Path("/{runId}/history")
    @Operation(operationId = "getRunHistory")
    @APIResponse(responseCode = "200", description = "Transitions in seq order, at most limit; Link: <...?after=<last seq>&limit=<limit>>; rel=\"next\" while more follow",
            content = @Content(schema = @Schema(type = SchemaType.ARRAY, implementation = TransitionView.class)))
    public Response history(@PathParam("runId") String runId, @QueryParam("after") String after,
                            @QueryParam("limit") String limit) {
        UUID id = parse(runId);
        long afterSeq = after == null ? 0 : wholeNumber("after", after, Long.MAX_VALUE, "a seq this history returned (0 or more)");
        int size = limit == null ? RunQueries.HISTORY_DEFAULT_LIMIT
                : (int) wholeNumber("limit", limit, RunQueries.HISTORY_MAX_LIMIT, "between 1 and " + RunQueries.HISTORY_MAX_LIMIT);
        RunQueries.HistoryPage page = runs.history(caller.tenant(), id, afterSeq, size);
        Response.ResponseBuilder answer = Response.ok(page.items());
        if (page.more()) {
            long last = page.items().get(page.items().size() - 1).seq();
            answer.header("Link", "</api/v1/runs/" + id + "/history?after=" + last + "&limit=" + size + ">; rel=\"next\"");
        }
        return answer.build();
    }

    private static long wholeNumber(String field, String value, long max, String expected) {
        if (value.matches("[0-9]{1,18}")) { // digits only: no sign, no space, nothing Long.parseLong would forgive
            long parsed = Long.parseLong(value);
            if (parsed <= max) {
                return parsed;
            }
        }
        throw new BadRequestException(field, field + " must be a whole number, " + expected + ": '" + value + "' is not");
    }

    @POST
    @Path("/{runId}/dead-letters/retry")
    @RolesAllowed(Roles.OPERATOR)
    @Operation(operationId = "retryRunDeadLetters")
    @APIResponse(responseCode = "202", content = @Content(schema = @Schema(implementation = Requeued.class)))
    @APIResponse(responseCode = "200", description = "The run has no dead letters: nothing to do",
            content = @Content(schema = @Schema(implementation = Requeued.class)))
    public Response retryDeadLetters(@PathParam("runId") String runId) {
        int requeued = parked.retry(caller.tenant(), parse(runId));
        return Response.status(requeued > 0 ? 202 : 200).entity(new Requeued(runId, requeued)).build();
    }

    @POST
    @Path("/{runId}/signals")
    @RolesAllowed(Roles.CLIENT)
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "signalRun")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = SignalBody.class)))
    @APIResponse(responseCode = "202", content = @Content(schema = @Schema(implementation = SignalReceipt.class)))
    @APIResponse(responseCode = "200", description = "Repeated idempotencyKey: delivered once, nothing new",
            content = @Content(schema = @Schema(implementation = SignalReceipt.class)))
    public Response signal(@PathParam("runId") String runId, JsonNode body) {
        SignalBody signal = bodies.read(body, SignalBody.class);
        boolean fresh = operations.signal(caller.tenant(), parse(runId), signal.name(), signal.payload(), signal.idempotencyKey());
        return Response.status(fresh ? 202 : 200).entity(new SignalReceipt(runId, signal.name(), signal.idempotencyKey(),
                fresh ? "accepted" : "duplicate")).build();
    }

    /** The dead-lettered wakeups and timers re-queued: 0 when the run had none. */
    @RegisterForReflection
    public record Requeued(String runId, int requeued) {
    }

    /** {@code delivered}: accepted, or duplicate for a repeated idempotencyKey (delivered once). */
    @RegisterForReflection
    public record SignalReceipt(String runId, String signal, String idempotencyKey,
                                @Schema(enumeration = {"accepted", "duplicate"}) String delivered) {
    }

    @RegisterForReflection
    public record Cancelling(String runId, @Schema(enumeration = "CANCELLING") String status) {
    }

    @RegisterForReflection
    public record SignalBody(@NotNull @Text(max = 200) String name, @MaxJsonSize JsonNode payload,
                             @NotNull @ClientKey String idempotencyKey) {
    }

    @POST
    @Path("/{runId}/cancel")
    @RolesAllowed(Roles.OPERATOR)
    @Operation(operationId = "cancelRun")
    @APIResponse(responseCode = "202", content = @Content(schema = @Schema(implementation = Cancelling.class)))
    public Response cancel(@PathParam("runId") String runId) {
        operations.cancel(caller.tenant(), parse(runId), "requested by " + caller.subject());
        return Response.accepted(new Cancelling(runId, "CANCELLING")).build();
    }

    @PATCH
    @Path("/{runId}")
    @RolesAllowed(Roles.OPERATOR)
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "patchRun")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = PatchBody.class)))
    @APIResponse(responseCode = "200", description = "The changed run; ETag is its new version",
            content = @Content(schema = @Schema(implementation = RunView.class)))
    public Response patch(@PathParam("runId") String runId, @HeaderParam("If-Match") String ifMatch, JsonNode body) {
        UUID id = parse(runId);
        OptionalLong expected = Versions.ifMatch(ifMatch);
        RunPatch patch = bodies.read(body, PatchBody.class, "tier", "nodes").toPatch();
        RunView run = VersionConflictException.onLostRace("Run " + id, expected, body, () -> operations.patch(caller.tenant(), id, expected, patch, body),
                () -> runs.get(caller.tenant(), id), RunView::version);
        return Versions.tagged(run, run.version());
    }

    @POST
    @Path("/{runId}/reset")
    @RolesAllowed(Roles.OPERATOR)
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "resetRun")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = ResetBody.class)))
    @APIResponse(responseCode = "200", description = "The reopened run; ETag is its new version",
            content = @Content(schema = @Schema(implementation = RunView.class)))
    public Response reset(@PathParam("runId") String runId, @HeaderParam("If-Match") String ifMatch, JsonNode body) {
        UUID id = parse(runId);
        OptionalLong expected = Versions.ifMatch(ifMatch);
        RunReset reset = bodies.read(body, ResetBody.class).toReset();
        RunView run = VersionConflictException.onLostRace("Run " + id, expected, body,
                () -> operations.reset(caller.tenant(), id, expected, reset, caller.subject(), body),
                () -> runs.get(caller.tenant(), id), RunView::version);
        return Versions.tagged(run, run.version());
    }

    /**
     * {@code {fromNodes?: [ids], failedOnly?, toRevision?: "current", reopenSucceeded?}}: at least one of fromNodes or
     * failedOnly.
     */
    @RegisterForReflection
    public record ResetBody(@jakarta.validation.constraints.Size(max = 500) List<@NotNull @Text(max = 64) String> fromNodes, Boolean failedOnly,
                            @Pattern(regexp = "current", message = "must be \"current\" (or left out: the run's own revision)")
                            String toRevision, Boolean reopenSucceeded) {

        RunReset toReset() {
            if ((fromNodes == null || fromNodes.isEmpty()) && !Boolean.TRUE.equals(failedOnly)) {
                throw new BadRequestException("fromNodes", "name the nodes to reset from in fromNodes, or set failedOnly: true");
            }
            return new RunReset(fromNodes == null ? List.of() : fromNodes, Boolean.TRUE.equals(failedOnly),
                    "current".equals(toRevision), Boolean.TRUE.equals(reopenSucceeded));
        }
    }

    /** {@code {tier?, nodes?: {id: {action: retry|skip}}}}: nodes in the order given; either may be left out, not null. */
    @RegisterForReflection
    public record PatchBody(@KnownTier String tier, Map<String, @NotNull @Valid NodeAction> nodes) {

        RunPatch toPatch() {
            Map<String, OperatorActions.Action> actions = new LinkedHashMap<>();
            if (nodes != null) {
                nodes.forEach((node, action) -> actions.put(node, OperatorActions.Action.fromWire(action.action()).orElseThrow()));
            }
            return new RunPatch(tier, actions);
        }
    }

    @RegisterForReflection
    public record NodeAction(@NotNull @Pattern(regexp = "retry|skip", message = "must be retry or skip") String action) {
    }

    static UUID parse(String runId) {
        try {
            return UUID.fromString(runId);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("runId", "'" + runId + "' is not a run id (a UUID)");
        }
    }

    private static Long parseLastEventId(String lastEventId) {
        if (lastEventId == null || lastEventId.isBlank()) {
            return null;
        }
        try {
            return Long.parseLong(lastEventId.trim());
        } catch (NumberFormatException e) {
            throw new BadRequestException("Last-Event-ID", "Last-Event-ID must be a run version this stream sent (a whole number)");
        }
    }
}
