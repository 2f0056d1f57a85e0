package dev.ductor.aggregate;

import dev.ductor.aggregate.core.RuleViolation;
import dev.ductor.aggregate.core.ScheduleViolation;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The core's type a native executable must reflect on (the {@link RuleViolation}s and {@link ScheduleViolation}s a refused
 * rule's or schedule's problem document carries), registered here because {@code aggregate.core} imports no Quarkus.
 */
@RegisterForReflection(targets = {RuleViolation.class, ScheduleViolation.class})
final class CoreReflection {

    private CoreReflection() {
    }
}
