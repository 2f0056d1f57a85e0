package dev.ductor.worker;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The in-process handlers this build ships, by name. Handlers named {@code ext:<name>} belong to
 * external workers that claim them over {@code /api/v1/tasks}.
 */
@ApplicationScoped
public class StepHandlers {

    public static final String EXTERNAL_PREFIX = "ext:";

    private final Map<String, StepHandler> byName = new TreeMap<>();

    @Inject
    public StepHandlers(Instance<StepHandler> handlers) {
        handlers.forEach(h -> byName.put(h.name(), h));
    }

    public boolean isKnown(String handler) {
        return byName.containsKey(handler) || (isExternal(handler) && handler.length() > EXTERNAL_PREFIX.length());
    }

    /** A handler an external worker runs (claimed over HTTP), never a step of this process. */
    public static boolean isExternal(String handler) {
        return handler != null && handler.startsWith(EXTERNAL_PREFIX);
    }

    public Optional<StepHandler> inProcess(String handler) {
        return Optional.ofNullable(byName.get(handler));
    }

    public Set<String> inProcessNames() {
        return byName.keySet();
    }
}
