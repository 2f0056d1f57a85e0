package dev.ductor.metrics;

/** How one tick ended, as metered: a version conflict is its own outcome, never an error. */
public enum TickOutcome {
    COMMITTED, CONFLICT, NOOP, ERROR;

    public String tag() {
        return name().toLowerCase();
    }
}
