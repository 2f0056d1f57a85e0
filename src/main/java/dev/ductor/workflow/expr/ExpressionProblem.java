package dev.ductor.workflow.expr;

/**
 * One reason an expression or template cannot be compiled. {@code path} locates it inside the field, for example
 * {@code order} or {@code items[2].sku} in an {@code input} template, and is empty for a bare expression.
 */
public record ExpressionProblem(String path, String expression, String message) {
}
