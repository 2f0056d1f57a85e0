package dev.ductor.workflow.model;

import java.util.Arrays;
import java.util.Optional;

/**
 * When a node whose dependencies have all finished runs, after Airflow's trigger rules. A dependency counts as
 * succeeded when it SUCCEEDED or an operator skipped it (so its dependants go ahead), as failed when it FAILED
 * (allowed to or not), and as skipped when it was SKIPPED as a branch not taken. A node whose rule does not hold is
 * SKIPPED, and so, by the same rule, are its dependants, unless theirs says otherwise.
 */
public enum RunIf {
    /** Every dependency succeeded: the default. */
    ALL_SUCCEEDED("allSucceeded"),
    /** None failed and at least one succeeded: the join after an if/else. */
    NONE_FAILED("noneFailed"),
    /** At least one failed: compensation. */
    ANY_FAILED("anyFailed"),
    /** Always, once every dependency finished: clean-up. */
    ALL_DONE("allDone");

    private final String wireName;

    RunIf(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<RunIf> fromWire(String name) {
        return Arrays.stream(values()).filter(r -> r.wireName.equals(name)).findFirst();
    }

    /** Whether a node with this rule runs, given how its finished dependencies ended. */
    public boolean holds(int succeeded, int failed, int skipped) {
        return switch (this) {
            case ALL_SUCCEEDED -> failed == 0 && skipped == 0;
            case NONE_FAILED -> failed == 0 && (succeeded > 0 || succeeded + skipped == 0);
            case ANY_FAILED -> failed > 0;
            case ALL_DONE -> true;
        };
    }
}
