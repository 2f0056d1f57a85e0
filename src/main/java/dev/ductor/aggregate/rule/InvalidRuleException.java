package dev.ductor.aggregate.rule;

import dev.ductor.aggregate.core.RuleViolation;
import dev.ductor.error.DuctorException;

import java.util.List;
import java.util.Map;

/** A rule body that cannot be stored (400), listing every violation by field. */
public class InvalidRuleException extends DuctorException {

    private final List<RuleViolation> violations;

    public InvalidRuleException(String message, List<RuleViolation> violations) {
        super(message + ". Nothing was saved.");
        this.violations = List.copyOf(violations);
    }

    @Override
    public int status() {
        return 400;
    }

    @Override
    public String type() {
        return "invalid-rule";
    }

    @Override
    public String title() {
        return "Invalid rule";
    }

    @Override
    public Map<String, Object> extensions() {
        return Map.of("violations", violations);
    }
}
