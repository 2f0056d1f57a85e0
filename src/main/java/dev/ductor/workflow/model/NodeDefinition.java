package dev.ductor.workflow.model;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.List;

/**
 * One validated node of a workflow. {@code input} is the task's static input (for example
 * {@code {"ms": 200}} for {@code sleep}); a task without one receives the run's input.
 */
public record NodeDefinition(
        String id,
        NodeType type,
        String handler,
        String pool,
        String signal,
        Duration timeout,
        Duration duration,
        List<String> dependsOn,
        RetryPolicy retry,
        JsonNode input) {

    public NodeDefinition {
        dependsOn = List.copyOf(dependsOn);
    }
}
