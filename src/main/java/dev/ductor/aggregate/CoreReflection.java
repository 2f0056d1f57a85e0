package dev.ductor.aggregate;

import dev.ductor.aggregate.core.RuleViolation;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The core's type a native executable must reflect on (the {@link RuleViolation}s a refused rule's problem document
 * carries), registered here because {@code aggregate.core} imports no Quarkus.
 */
@RegisterForReflection(targets = RuleViolation.class)
final class CoreReflection {

    private CoreReflection() {
    }
}
