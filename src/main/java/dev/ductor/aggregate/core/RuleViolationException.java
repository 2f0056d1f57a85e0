package dev.ductor.aggregate.core;

import java.util.List;
import java.util.stream.Collectors;

/** A rule body that cannot be stored; carries every violation found, not just the first. */
public class RuleViolationException extends RuntimeException {

    private final List<RuleViolation> violations;

    public RuleViolationException(List<RuleViolation> violations) {
        super(violations.stream()
                .map(v -> (v.field() == null ? "" : v.field() + ": ") + v.message())
                .collect(Collectors.joining("; ")));
        this.violations = List.copyOf(violations);
    }

    public List<RuleViolation> violations() {
        return violations;
    }
}
