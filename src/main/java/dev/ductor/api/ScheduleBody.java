package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of {@code PUT /schedules/{name}} as the OpenAPI document describes it; {@code aggregate/core/ScheduleValidator}
 * checks the JSON the resource reads, and {@code BodySchemasTest} keeps these fields equal to the ones it takes.
 */
@Schema(name = "ScheduleDefinition", description = "Start a run of a workflow at each fire time of a cron expression")
public record ScheduleBody(
        @Schema(description = "When sent, must equal the name in the path") String name,
        @Schema(required = true, description = "Quartz form, seconds first, e.g. 0 */5 * * * ?") String cron,
        @Schema(required = true, description = "An IANA time zone, e.g. Europe/Amsterdam, or UTC") String timezone,
        @Schema(required = true) String workflow,
        @Schema(description = "The runs' input; left out: {}") JsonNode input,
        @Schema(enumeration = {"skip", "allow", "cancelPrevious"}, description = "Left out: skip") String overlap,
        @Schema(enumeration = {"none", "last", "all"}, description = "Fire times missed while down; left out: none") String catchUp,
        Boolean paused) {
}
