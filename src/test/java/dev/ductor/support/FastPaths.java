package dev.ductor.support;

import dev.ductor.config.DuctorConfig;

/**
 * Which fast paths the server under test takes ({@code ductor.commit.strategy}, {@code ductor.dispatch.local}; both
 * plain under {@code ./mvnw test -Pslow-paths}), for the few assertions that differ between them.
 */
public final class FastPaths {

    private FastPaths() {
    }

    /**
     * Whether a report's {@code next} brings the run's next steps: only when the result is committed while the request
     * waits (grouped) and that commit leases what it dispatches (eager). Otherwise the answer has none, and the steps are
     * queued for a claim (once a coordinator tick has applied the result, when inline).
     */
    public static boolean reportsLeaseNext(DuctorConfig config) {
        return config.commit().strategy() == DuctorConfig.Commit.Strategy.GROUPED
                && config.dispatch().local() == DuctorConfig.Dispatch.Local.EAGER;
    }

    /** Whether a report's result is applied to its run before the request is answered (grouped), or by a later tick. */
    public static boolean reportsCommitBeforeTheAnswer(DuctorConfig config) {
        return config.commit().strategy() == DuctorConfig.Commit.Strategy.GROUPED;
    }
}
