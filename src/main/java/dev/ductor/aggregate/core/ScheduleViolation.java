package dev.ductor.aggregate.core;

/** One reason a schedule body was refused: the field (null for the whole body) and why. */
public record ScheduleViolation(String field, String message) {
}
