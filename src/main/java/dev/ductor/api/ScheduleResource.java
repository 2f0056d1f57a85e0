package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.NamedAggregates;
import dev.ductor.aggregate.schedule.ScheduleService;
import dev.ductor.aggregate.schedule.ScheduleView;
import dev.ductor.error.VersionConflictException;
import dev.ductor.security.CallerContext;
import dev.ductor.security.Roles;
import dev.ductor.validation.Constraints.Name;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;
import java.util.OptionalLong;

/**
 * Schedules: start a run of a workflow at each fire time of a cron expression (Quartz form, seconds first). {@code PUT}
 * creates (201) or replaces (200, needs If-Match) a schedule; {@code GET} shows it with its ETag and next fire times.
 */
@Tag(name = "Schedules", description = "Cron schedules that start runs")
@Path("/api/v1/schedules")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@APIResponse(responseCode = "401", ref = "unauthorized") // and the 403: api/ApiDocumentation
public class ScheduleResource {

    @Inject
    ScheduleService schedules;

    @Inject
    CallerContext caller;

    @PUT
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "putSchedule")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = ScheduleBody.class)))
    @APIResponse(responseCode = "201", content = @Content(schema = @Schema(implementation = ScheduleView.class)))
    @APIResponse(responseCode = "200", description = "Schedule replaced; ETag is its new version",
            content = @Content(schema = @Schema(implementation = ScheduleView.class)))
    public Response put(@PathParam("name") @Name String name, @HeaderParam("If-Match") String ifMatch, JsonNode body) {
        OptionalLong expected = Versions.ifMatch(ifMatch);
        String tenant = caller.tenant();
        NamedAggregates.Put<ScheduleView> result = VersionConflictException.onLostRace("Schedule '" + name + "'", expected, body,
                () -> schedules.put(tenant, name, body, expected, caller.subject()), () -> schedules.get(tenant, name),
                ScheduleView::version);
        ScheduleView view = result.view(); // typed here: the JSON body's type stays visible to the native image
        return Versions.put(result.created(), "/api/v1/schedules/" + name, view, view.version());
    }

    @GET
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "listSchedules")
    @APIResponse(responseCode = "200", description = "The tenant's schedules, each with its version",
            content = @Content(schema = @Schema(implementation = ScheduleList.class)))
    public ScheduleList list() {
        return new ScheduleList(schedules.list(caller.tenant()));
    }

    @GET
    @Path("/{name}")
    @RolesAllowed({Roles.ADMIN, Roles.OPERATOR, Roles.CLIENT, Roles.WORKER})
    @Operation(operationId = "getSchedule")
    @APIResponse(responseCode = "200", description = "The schedule; ETag is its version",
            content = @Content(schema = @Schema(implementation = ScheduleView.class)))
    public Response get(@PathParam("name") @Name String name) {
        ScheduleView schedule = schedules.get(caller.tenant(), name);
        return Versions.tagged(schedule, schedule.version());
    }

    public record ScheduleList(List<ScheduleView> items) {
    }
}
