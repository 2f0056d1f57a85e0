package dev.ductor.aggregate.core;

/** One reason a rule body was refused: the field (a dotted path into the body, or null for the whole body) and why. */
public record RuleViolation(String field, String message) {
}
