package dev.ductor.workflow.model;

/** One reason a definition was refused; {@code node} is null for whole-definition problems. */
public record Violation(String node, String field, String message) {
}
