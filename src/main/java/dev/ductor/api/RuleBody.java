package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.util.Map;

/**
 * The body of {@code PUT /rules/{name}} as the OpenAPI document describes it; {@code aggregate/core/RuleValidator}
 * checks the JSON the resource reads (exactly one of start and signal), and {@code BodySchemasTest} keeps these fields
 * equal to the ones it takes.
 */
@Schema(name = "RuleDefinition", description = "An event rule: events of type `on` whose payload matches start or signal a run")
public record RuleBody(
        @Schema(description = "When sent, must equal the name in the path") String name,
        @Schema(required = true, description = "The event type it reacts to") String on,
        @Schema(description = "Dotted payload paths to the values they must equal") Map<String, JsonNode> match,
        @Schema(description = "Start a run (exactly one of start and signal)") Start start,
        @Schema(description = "Signal the run whose correlationKey is the event's key (exactly one of start and signal)") Signal signal,
        @Schema(description = "Left out: true") Boolean enabled) {

    @Schema(name = "RuleStart")
    public record Start(@Schema(required = true) String workflow,
                        @Schema(description = "A template: \"$\" is the event's payload, \"$key\" its key") JsonNode input,
                        @Schema(description = "A configured tier; left out: standard") String tier) {
    }

    @Schema(name = "RuleSignal")
    public record Signal(@Schema(required = true) String name, @Schema(description = "A template, as a start's input") JsonNode payload) {
    }
}
