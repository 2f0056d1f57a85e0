package dev.ductor.run.core;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A node's lifecycle. {@code RUNNING} means a task for the current attempt is queued or executing
 * (RUNNING to RUNNING is a retry with the next attempt); {@code WAITING} means a signal or timer is
 * armed. A node goes from PENDING straight to FAILED when an expression it needs to start fails, and straight to
 * SUCCEEDED when it is a fan-out over no items. Legal moves are data; {@link #checkMoveTo} throws on anything else.
 */
public enum NodeStatus {
    PENDING, RUNNING, WAITING, SUCCEEDED, FAILED, SKIPPED, CANCELLED;

    private static final Map<NodeStatus, Set<NodeStatus>> LEGAL = Map.of(
            PENDING, EnumSet.of(RUNNING, WAITING, SUCCEEDED, FAILED, SKIPPED, CANCELLED),
            RUNNING, EnumSet.of(RUNNING, SUCCEEDED, FAILED, SKIPPED, CANCELLED),
            WAITING, EnumSet.of(SUCCEEDED, FAILED, SKIPPED, CANCELLED),
            FAILED, EnumSet.of(RUNNING, SKIPPED, CANCELLED),
            SUCCEEDED, EnumSet.noneOf(NodeStatus.class),
            SKIPPED, EnumSet.noneOf(NodeStatus.class),
            CANCELLED, EnumSet.noneOf(NodeStatus.class));

    /** Finished: its dependants' triggers can be decided on it. */
    public boolean isDone() {
        return this == SUCCEEDED || this == FAILED || this == SKIPPED || this == CANCELLED;
    }

    /** Still owes the run something: queued, executing, waiting or not yet started. */
    public boolean isOpen() {
        return this == PENDING || this == RUNNING || this == WAITING;
    }

    public void checkMoveTo(NodeStatus next) {
        if (!LEGAL.get(this).contains(next)) {
            throw new IllegalTransitionException("node", name(), next.name());
        }
    }
}
