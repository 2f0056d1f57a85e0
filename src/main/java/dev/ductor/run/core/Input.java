package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Something that happened to a run since its last tick. {@code id} identifies the inbox row it came from
 * (0 when it came on the wakeup itself, as a fired timer does), so the shell can mark it consumed.
 */
public sealed interface Input {

    long id();

    record TaskCompleted(long id, String node, int attempt, JsonNode output) implements Input {
    }

    record TaskFailed(long id, String node, int attempt, String error, boolean retryable) implements Input {
    }

    /**
     * The attempt's lease ran out: its pod or external worker died, stalled, or lost the database before it could
     * report. Not the handler's failure, so it does not spend the node's {@code maxAttempts}: the node is dispatched
     * again as a new attempt, up to {@code retryBudget} times per node (the reaper's
     * {@code ductor.worker.lease-expiry-retries} when it reaped this lease). Past the budget it is a failed attempt
     * like any other.
     */
    record LeaseExpired(long id, String node, int attempt, String error, int retryBudget) implements Input {
    }

    record TimerFired(long id, String node) implements Input {
    }

    record SignalReceived(long id, String name, JsonNode payload) implements Input {
    }

    record CancelRequested(long id, String reason) implements Input {
    }

    /** An operator's command on one node, checked by {@link OperatorActions} before it is ticked. */
    record OperatorAction(long id, String node, OperatorActions.Action action) implements Input {
    }

    /**
     * The watchdog's or the livelock guard's verdict: end the run as failed. {@code decidedAtSeq} is the run's
     * {@code last_transition_seq} the verdict was reached on; a run that has moved since (an operator's retry, a
     * result) is no longer the run that was judged, so the verdict is dropped instead of applied to it.
     */
    record ForceFail(long id, String reason, long decidedAtSeq) implements Input {
    }
}
