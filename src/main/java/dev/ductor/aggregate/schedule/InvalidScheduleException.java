package dev.ductor.aggregate.schedule;

import dev.ductor.aggregate.core.ScheduleViolation;
import dev.ductor.error.DuctorException;

import java.util.List;
import java.util.Map;

/** A schedule body that cannot be stored (422): a bad cron, an unknown time zone or workflow, ...; every violation by field. */
public class InvalidScheduleException extends DuctorException {

    private final List<ScheduleViolation> violations;

    public InvalidScheduleException(String message, List<ScheduleViolation> violations) {
        super(message + ". Nothing was saved.");
        this.violations = List.copyOf(violations);
    }

    @Override
    public int status() {
        return 422;
    }

    @Override
    public String type() {
        return "invalid-schedule";
    }

    @Override
    public String title() {
        return "Invalid schedule";
    }

    @Override
    public Map<String, Object> extensions() {
        return Map.of("violations", violations);
    }
}
