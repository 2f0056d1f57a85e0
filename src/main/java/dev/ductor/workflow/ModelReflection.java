package dev.ductor.workflow;

import dev.ductor.workflow.model.Violation;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The model's type a native executable must reflect on (the {@link Violation}s a refused definition's problem
 * document carries), registered here because {@code workflow.model} imports no Quarkus.
 */
@RegisterForReflection(targets = Violation.class)
final class ModelReflection {

    private ModelReflection() {
    }
}
