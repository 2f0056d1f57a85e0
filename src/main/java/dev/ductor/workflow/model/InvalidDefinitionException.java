package dev.ductor.workflow.model;

import java.util.List;
import java.util.stream.Collectors;

/** A definition that cannot be stored; carries every violation found, not just the first. */
public class InvalidDefinitionException extends RuntimeException {

    private final List<Violation> violations;

    public InvalidDefinitionException(List<Violation> violations) {
        super(violations.stream()
                .map(v -> (v.node() == null ? "" : "node '" + v.node() + "': ") + v.message())
                .collect(Collectors.joining("; ")));
        this.violations = List.copyOf(violations);
    }

    public List<Violation> violations() {
        return violations;
    }
}
