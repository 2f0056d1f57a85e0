package dev.ductor.sdk;

/**
 * When a node whose dependencies have all finished runs (a node's {@code runIf}); a node whose rule can no longer hold
 * is SKIPPED. After Airflow's trigger rules.
 */
public enum RunIf {
    /** Every dependency succeeded: the default. */
    ALL_SUCCEEDED("allSucceeded"),
    /** Every dependency finished, none failed, at least one succeeded: the join after an if/else. */
    NONE_FAILED("noneFailed"),
    /** At least one dependency failed: compensation. */
    ANY_FAILED("anyFailed"),
    /** Every dependency finished, however: clean-up. */
    ALL_DONE("allDone");

    private final String wireName;

    RunIf(String wireName) {
        this.wireName = wireName;
    }

    /** The name in a definition's JSON, such as {@code noneFailed}. */
    public String wireName() {
        return wireName;
    }
}
