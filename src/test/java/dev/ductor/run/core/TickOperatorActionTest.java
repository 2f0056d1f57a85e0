package dev.ductor.run.core;

import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ductor.run.core.Runs.completed;
import static dev.ductor.run.core.Runs.dispatched;
import static dev.ductor.run.core.Runs.failed;
import static dev.ductor.run.core.Runs.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An operator's retry or skip: it supersedes the old attempt, and is judged on the state it meets in the tick. */
class TickOperatorActionTest {

    private static final String BACKED_OFF = """
            [{"id": "pay", "type": "task", "handler": "ext:pay", "retry": {"maxAttempts": 3, "backoff": "PT5M"}},
             {"id": "ship", "type": "task", "handler": "ext:ship"}]""";

    private static Input.OperatorAction retry(String node) {
        return new Input.OperatorAction(0, node, OperatorActions.Action.RETRY);
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

        TickResult r = run.tick(failed(1, "ship", 1, false), retry("pay"));

        assertEquals(RunStatus.FAILED, r.status());
        assertEquals(1, r.refusedActions().size(), "the retry of pay changed nothing that lasts");
        assertTrue(r.refusedActions().get(0).reason().contains("node 'ship' failed"), r.refusedActions().get(0).reason());
    }
}
