package dev.ductor.aggregate.core;

import java.util.List;
import java.util.stream.Collectors;

/** A schedule body that cannot be stored; carries every violation found, not just the first. */
public class ScheduleViolationException extends RuntimeException {

    private final List<ScheduleViolation> violations;

    public ScheduleViolationException(List<ScheduleViolation> violations) {
        super(violations.stream()
                .map(v -> (v.field() == null ? "" : v.field() + ": ") + v.message())
                .collect(Collectors.joining("; ")));
        this.violations = List.copyOf(violations);
    }

    public List<ScheduleViolation> violations() {
        return violations;
    }
}
