package dev.ductor.run.core;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/** A run's lifecycle. Legal moves are data; {@link #checkMoveTo} throws on anything else. */
public enum RunStatus {
    RUNNING, SUCCEEDED, FAILED, CANCELLED;

    private static final Map<RunStatus, Set<RunStatus>> LEGAL = Map.of(
            RUNNING, EnumSet.of(SUCCEEDED, FAILED, CANCELLED),
            SUCCEEDED, EnumSet.noneOf(RunStatus.class),
            FAILED, EnumSet.noneOf(RunStatus.class),
            CANCELLED, EnumSet.noneOf(RunStatus.class));

    public boolean isTerminal() {
        return this != RUNNING;
    }

    public void checkMoveTo(RunStatus next) {
        if (!LEGAL.get(this).contains(next)) {
            throw new IllegalTransitionException("run", name(), next.name());
        }
    }
}
