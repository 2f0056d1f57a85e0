package dev.ductor.worker;

import dev.ductor.workflow.model.Handlers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The in-process handlers this build ships, by name. Handlers named {@code ext:<name>} belong to
 * external workers that claim them over {@code /api/v1/tasks} ({@link Handlers}, the rule of the model).
 */
@ApplicationScoped
public class StepHandlers implements Handlers {

    private final Map<String, StepHandler> byName = new TreeMap<>();

    @Inject
    public StepHandlers(Instance<StepHandler> handlers) {
        handlers.forEach(h -> byName.put(h.name(), h));
    }

    public Optional<StepHandler> inProcess(String handler) {
        return Optional.ofNullable(byName.get(handler));
    }

    @Override
    public Set<String> inProcessNames() {
        return byName.keySet();
    }
}
