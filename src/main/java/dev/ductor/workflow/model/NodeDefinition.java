package dev.ductor.workflow.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.workflow.expr.Expression;
import dev.ductor.workflow.expr.Template;

import java.time.Duration;
import java.util.List;

/**
 * One validated node of a workflow.
 *
 * @param input          the task's or child run's input, a template compiled with the node's expressions (for example
 *                       {@code {"ms": 200}}, or {@code {"order": "${{ input.orderId }}"}}); null when absent: a task
 *                       without one receives the run's input
 * @param when           a CEL boolean: false makes the node SKIPPED; null means always
 * @param runIf          which outcomes of the dependencies let the node run
 * @param allowFailure   the node may fail without failing the run
 * @param forEach        a CEL list: the task runs once per item (a fan-out); null for a single task
 * @param maxConcurrency at most this many items of a fan-out run at a time; 0 for no bound of its own
 * @param workflow       the child workflow a {@code workflow} node starts
 * @param revision       the child's pinned revision, or null for its current one
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
        Template input,
        Expression when,
        RunIf runIf,
        boolean allowFailure,
        Expression forEach,
        int maxConcurrency,
        String workflow,
        Integer revision) {

    public NodeDefinition {
        dependsOn = List.copyOf(dependsOn);
    }

    /** The input as written in the definition, before any expression is evaluated. */
    public JsonNode inputSource() {
        return input == null ? null : input.source();
    }

    public boolean isFanOut() {
        return forEach != null;
    }
}
