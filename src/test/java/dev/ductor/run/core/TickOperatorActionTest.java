package dev.ductor.run.core;

import dev.ductor.run.core.Effect.DispatchTask;
import dev.ductor.run.core.Effect.SupersedeTasks;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.ductor.run.core.Runs.NOW;
import static dev.ductor.run.core.Runs.completed;
import static dev.ductor.run.core.Runs.dispatched;
import static dev.ductor.run.core.Runs.failed;
import static dev.ductor.run.core.Runs.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An operator's retry or skip: it supersedes the old attempt, and is judged on the state it meets in the tick. */
@Tag("unit")
class TickOperatorActionTest {

    private static final String BACKED_OFF = """
            [{"id": "pay", "type": "task", "handler": "ext:pay", "retry": {"maxAttempts": 3, "backoff": "PT5M"}},
             {"id": "ship", "type": "task", "handler": "ext:ship"}]""";

    private static Input.OperatorAction retry(String node) {
        return new Input.OperatorAction(0, node, OperatorActions.Action.RETRY);
    }

    private static Input.OperatorAction skip(String node) {
        return new Input.OperatorAction(0, node, OperatorActions.Action.SKIP);
    }

    /** pay's first attempt failed: its second waits out a five-minute backoff. */
    private static Runs.Driver backedOff() {
        Runs.Driver run = Runs.Driver.start(BACKED_OFF);
        run.tick();
        TickResult failedOnce = run.tick(failed(1, "pay", 1, true));
        assertEquals(NOW.plus(Duration.ofMinutes(5)), ((DispatchTask) failedOnce.effects().get(0)).availableAt());
        return run;
    }

    @Test
    void aRetrySupersedesTheAttemptItReplacesAndDispatchesTheNextNow() {
        TickResult r = backedOff().tick(retry("pay"));

        assertEquals(new SupersedeTasks("pay", 2), r.effects().get(0), "attempt 2, queued for later, must not run too");
        assertEquals(List.of("pay#3"), dispatched(r));
        assertEquals(NOW, ((DispatchTask) r.effects().get(1)).availableAt());
        assertTrue(r.refusedActions().isEmpty());
    }

    @Test
    void aSkipOfARunningTaskSupersedesItsAttempt() {
        TickResult r = backedOff().tick(skip("pay"));

        assertEquals(List.of(new SupersedeTasks("pay", 2)), r.effects());
        assertEquals(NodeStatus.SKIPPED, state(r, "pay"));
    }

    @Test
    void anActionIsJudgedAfterTheInputsBeforeIt() {
        Runs.Driver run = Runs.Driver.start(BACKED_OFF);
        run.tick();

        TickResult r = run.tick(completed(1, "ship", 1), retry("ship"));

        assertEquals(NodeStatus.SUCCEEDED, state(r, "ship"), "the result is applied");
        assertEquals(1, r.refusedActions().size());
        OperatorActions.Refusal refusal = r.refusedActions().get(0);
        assertEquals("ship", refusal.node());
        assertEquals(OperatorActions.Action.RETRY, refusal.action());
        assertTrue(refusal.reason().contains("SUCCEEDED"), refusal.reason());
        assertTrue(dispatched(r).isEmpty(), "no second attempt of a node that succeeded");
    }

    @Test
    void anActionOnARunThatTheInputsBeforeItCancelledIsRefused() {
        Runs.Driver run = Runs.Driver.start(BACKED_OFF);
        run.tick();

        TickResult r = run.tick(new Input.CancelRequested(5, "by an operator"), retry("pay"));

        assertEquals(RunStatus.CANCELLED, r.status());
        assertEquals(1, r.refusedActions().size());
        assertTrue(r.refusedActions().get(0).reason().contains("CANCELLED"), r.refusedActions().get(0).reason());
    }

    @Test
    void anActionThatAppliedIsStillRefusedWhenTheRunEndsFailedInTheSameTick() {
        Runs.Driver run = Runs.Driver.start(BACKED_OFF);
        run.tick();

        // Skipping pay leaves no node open, so the run ends in this tick, FAILED by ship.
        TickResult r = run.tick(failed(1, "ship", 1, false), skip("pay"));

        assertEquals(RunStatus.FAILED, r.status());
        assertEquals(1, r.refusedActions().size(), "the skip of pay changed nothing that lasts");
        assertTrue(r.refusedActions().get(0).reason().contains("node 'ship' failed"), r.refusedActions().get(0).reason());
    }
}
