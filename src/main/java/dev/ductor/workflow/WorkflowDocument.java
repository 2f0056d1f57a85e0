package dev.ductor.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.util.List;

/**
 * The body of {@code PUT /workflows/{name}} as the OpenAPI document describes it, so a generated client can send a
 * definition. Only a description: the resource reads the body as JSON and {@code workflow/model/DefinitionParser}
 * checks it (unknown fields refused, expressions compiled); {@code api/BodySchemasTest} keeps these fields equal to the
 * ones the parser takes.
 */
@Schema(name = "WorkflowDefinition", description = "A workflow: a DAG of nodes (CONTRACT §4 and §7)")
public record WorkflowDocument(
        @Schema(description = "When sent, must equal the name in the path") String name,
        @Schema(required = true, minItems = 1, maxItems = 500) List<Node> nodes,
        @Schema(description = "The template of the run's output; left out: the map of node outputs") JsonNode output,
        @Schema(description = "How long this revision's finished runs are kept (ISO-8601 duration, e.g. P7D); left out: ductor.retention.default")
        String retention) {

    @Schema(name = "WorkflowNode", description = "One node; which fields apply depends on its type")
    public record Node(
            @Schema(required = true, pattern = "[A-Za-z0-9_.-]{1,64}") String id,
            @Schema(required = true, enumeration = {"task", "signal", "timer", "workflow"}) String type,
            @Schema(description = "task: the handler, e.g. noop, echo, sleep, fail, http, or ext:<name> for external workers") String handler,
            @Schema(description = "task: the pool whose capacity bounds it") String pool,
            @Schema(description = "signal: the signal name it waits for") String signal,
            @Schema(description = "signal: how long to wait, ISO-8601 (e.g. PT1H)") String timeout,
            @Schema(description = "timer: the delay, ISO-8601 (e.g. PT5S)") String duration,
            List<String> dependsOn,
            Retry retry,
            @Schema(description = "The task's or child run's input, a template: \"${{ expr }}\" strings are CEL") JsonNode input,
            @Schema(description = "A CEL boolean: false makes the node SKIPPED") String when,
            @Schema(enumeration = {"allSucceeded", "noneFailed", "anyFailed", "allDone"}) String runIf,
            Boolean allowFailure,
            @Schema(description = "A CEL list: the task runs once per item") String forEach,
            @Schema(minimum = "0", maximum = "1000") Integer maxConcurrency,
            @Schema(description = "workflow: the child workflow's name") String workflow,
            @Schema(description = "workflow: the child's pinned revision; left out: its current one", minimum = "1") Integer revision) {
    }

    @Schema(name = "RetryPolicy")
    public record Retry(@Schema(minimum = "1") Integer maxAttempts,
                        @Schema(description = "ISO-8601, doubled per attempt, capped at 1 hour") String backoff) {
    }
}
