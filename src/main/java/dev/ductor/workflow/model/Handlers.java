package dev.ductor.workflow.model;

import java.util.Set;

/**
 * The handler names a definition may use: those shipped in-process (named by the worker, which implements this) and
 * {@code ext:<name>}, run by external workers that claim them over {@code /api/v1/tasks}. The rule lives with the
 * model, so the run and workflow packages read it without depending on the worker.
 */
public interface Handlers {

    String EXTERNAL_PREFIX = "ext:";

    /** A handler an external worker runs (claimed over HTTP), never a step of this process. */
    static boolean isExternal(String handler) {
        return handler != null && handler.startsWith(EXTERNAL_PREFIX);
    }

    /** The in-process handlers of this build, by name. */
    Set<String> inProcessNames();

    default boolean isKnown(String handler) {
        return inProcessNames().contains(handler) || (isExternal(handler) && handler.length() > EXTERNAL_PREFIX.length());
    }
}
