package dev.ductor.api;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;

/**
 * The body of {@code POST /bulk-actions} as the OpenAPI document describes it; {@link BulkActionResource} checks the
 * JSON it reads, and {@code BodySchemasTest} keeps these fields equal to the ones it takes.
 */
@Schema(name = "BulkActionRequest")
public record BulkActionBody(
        @Schema(required = true, enumeration = {"cancel", "reset", "retry-dead-letters"}) String action,
        @Schema(required = true, description = "Which runs; {} for every run of the tenant") Filter filter,
        @Schema(description = "true: only count them and show a sample") Boolean dryRun,
        @Schema(enumeration = "current", description = "reset only: move the runs to the workflow's current revision") String toRevision) {

    @Schema(name = "BulkActionFilter")
    public record Filter(String workflow, @Schema(enumeration = {"RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"}) String status,
                         @Schema(minimum = "1") Integer revision, Instant createdBefore, Instant createdAfter,
                         @Schema(description = "key:value, or a list of them: the runs carrying all of those tags",
                                 oneOf = {String.class, String[].class}) com.fasterxml.jackson.databind.JsonNode tag) {
    }
}
