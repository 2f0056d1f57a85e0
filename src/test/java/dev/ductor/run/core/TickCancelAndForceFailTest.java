package dev.ductor.run.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ductor.run.core.Runs.completed;
import static dev.ductor.run.core.Runs.ids;
import static dev.ductor.run.core.Runs.moves;
import static dev.ductor.run.core.Runs.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ending a run from outside: an operator's cancel, the watchdog's forced failure. */
@Tag("unit")
class TickCancelAndForceFailTest {

    static final String MIXED = """
            [
              {"id": "done", "type": "task", "handler": "noop"},
              {"id": "task", "type": "task", "handler": "noop", "dependsOn": ["done"]},
              {"id": "sig", "type": "signal", "signal": "go", "dependsOn": ["done"]},
              {"id": "later", "type": "task", "handler": "noop", "dependsOn": ["task", "sig"]}
            ]""";

    /** done SUCCEEDED, task RUNNING, sig WAITING, later PENDING. */
    private static Runs.Driver midway() {
        Runs.Driver run = Runs.Driver.start(MIXED);
        run.tick();
        run.tick(completed(1, "done", 1));
        return run;
    }

    @Test
    void cancelEndsTheRunAndCancelsEveryOpenNode() {
        Runs.Driver run = midway();

        TickResult r = run.tick(new Input.CancelRequested(7, "operator said so"));

        assertEquals(List.of("task:RUNNING->CANCELLED", "sig:WAITING->CANCELLED", "later:PENDING->CANCELLED",
                "run:RUNNING->CANCELLED"), moves(r));
        assertEquals(RunStatus.CANCELLED, r.status());
        assertEquals(NodeStatus.SUCCEEDED, state(r, "done"), "finished nodes keep their outcome");
        assertTrue(r.transitions().get(3).cause().contains("operator said so"), r.transitions().get(3).cause());
        assertTrue(r.effects().isEmpty());
        assertEquals(ids(7), r.consumedInputs());
        assertNull(r.output());
    }

    @Test
    void forceFailEndsTheRunAsFailedWithTheReasonAsCause() {
        Runs.Driver run = midway();

        TickResult r = run.tick(new Input.ForceFail(8, "livelock guard tripped", run.snapshot.lastSeq()));

        assertEquals(List.of("task:RUNNING->CANCELLED", "sig:WAITING->CANCELLED", "later:PENDING->CANCELLED",
                "run:RUNNING->FAILED"), moves(r));
        assertEquals(RunStatus.FAILED, r.status());
        Transition runMove = r.transitions().get(3);
        assertNull(runMove.node());
        assertTrue(runMove.cause().contains("livelock guard tripped"), runMove.cause());
        assertEquals(ids(8), r.consumedInputs());
    }

    @Test
    void cancelOnAFreshRunCancelsPendingNodesAndDispatchesNothing() {
        TickResult r = Runs.tick(Runs.fresh(MIXED), new Input.CancelRequested(1, "never mind"));

        assertEquals(List.of("done:PENDING->CANCELLED", "task:PENDING->CANCELLED", "sig:PENDING->CANCELLED",
                "later:PENDING->CANCELLED", "run:RUNNING->CANCELLED"), moves(r));
        assertTrue(r.effects().isEmpty());
    }

    @Test
    void completionBeforeCancelInTheSameTickIsRecordedButStartsNothing() {
        Runs.Driver run = midway();

        TickResult r = run.tick(completed(2, "task", 1), new Input.CancelRequested(3, "stop"));

        assertEquals(List.of("task:RUNNING->SUCCEEDED", "sig:WAITING->CANCELLED", "later:PENDING->CANCELLED",
                "run:RUNNING->CANCELLED"), moves(r));
        assertTrue(r.effects().isEmpty());
        assertEquals(ids(2, 3), r.consumedInputs());
    }

    @Test
    void secondCancelAfterForceFailInOneTickIsOnlyConsumed() {
        Runs.Driver run = midway();

        TickResult r = run.tick(new Input.ForceFail(4, "stuck", run.snapshot.lastSeq()), new Input.CancelRequested(5, "too late"));

        assertEquals(RunStatus.FAILED, r.status());
        assertEquals(ids(4, 5), r.consumedInputs());
        assertEquals(1, r.transitions().stream().filter(t -> t.node() == null).count());
    }

    @Test
    void forceFailDecidedBeforeTheRunMovedIsConsumedAndChangesNothing() {
        Runs.Driver run = midway();
        long judgedAt = run.snapshot.lastSeq();
        run.tick(new Input.OperatorAction(0, "task", OperatorActions.Action.RETRY)); // the operator's rescue commits first

        TickResult r = run.tick(new Input.ForceFail(9, "stuck", judgedAt));

        assertTrue(r.transitions().isEmpty(), "a verdict on an older state is dropped: " + moves(r));
        assertEquals(RunStatus.RUNNING, r.status());
        assertEquals(ids(9), r.consumedInputs(), "and consumed, so it is not applied later either");
    }

    @Test
    void forceFailIsDroppedWhenAnInputBeforeItInTheSameTickMovesTheRun() {
        Runs.Driver run = midway();

        TickResult r = run.tick(completed(2, "task", 1), new Input.ForceFail(3, "stuck", run.snapshot.lastSeq()));

        assertEquals(List.of("task:RUNNING->SUCCEEDED"), moves(r), "the result advanced the run: it was not stuck");
        assertEquals(RunStatus.RUNNING, r.status());
        assertEquals(ids(2, 3), r.consumedInputs());
    }
}
