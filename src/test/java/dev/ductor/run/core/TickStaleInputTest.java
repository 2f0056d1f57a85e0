package dev.ductor.run.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Map;

import static dev.ductor.run.core.Runs.completed;
import static dev.ductor.run.core.Runs.failed;
import static dev.ductor.run.core.Runs.ids;
import static dev.ductor.run.core.Runs.json;
import static dev.ductor.run.core.Runs.signal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Late, duplicate and misdirected inputs are drained without changing the run. */
@Tag("unit")
class TickStaleInputTest {

    private static RunSnapshot aRunningAttempt2() {
        Runs.Driver run = Runs.Driver.start(TickDispatchTest.CHAIN);
        run.tick();
        return Runs.withNodes(run.snapshot, RunStatus.RUNNING,
                Map.of("a", new NodeState(NodeStatus.RUNNING, 2, null, "earlier")));
    }

    private static void assertUnchanged(RunSnapshot before, TickResult r) {
        assertTrue(r.transitions().isEmpty(), "transitions " + r.transitions());
        assertTrue(r.effects().isEmpty(), "effects " + r.effects());
        assertEquals(before.nodes(), r.nodes());
        assertEquals(before.status(), r.status());
        assertEquals(before.lastSeq(), r.lastSeq());
        assertFalse(r.madeProgress());
    }

    @Test
    void completionForAnOlderAttemptIsConsumedButChangesNothing() {
        RunSnapshot before = aRunningAttempt2();
        TickResult r = Runs.tick(before, completed(8, "a", 1));
        assertUnchanged(before, r);
        assertEquals(ids(8), r.consumedInputs());
        assertFalse(r.isNoop(), "consuming stale input is still something to commit");
    }

    @Test
    void completionOrFailureForAFutureAttemptIsConsumedButChangesNothing() {
        RunSnapshot before = aRunningAttempt2();
        TickResult r = Runs.tick(before, completed(8, "a", 3), failed(9, "a", 3, false));
        assertUnchanged(before, r);
        assertEquals(ids(8, 9), r.consumedInputs());
    }

    @Test
    void completionForANodeThatIsNotRunningIsConsumedButChangesNothing() {
        RunSnapshot before = aRunningAttempt2();
        TickResult r = Runs.tick(before, completed(8, "b", 1), failed(9, "c", 0, true));
        assertUnchanged(before, r);
        assertEquals(ids(8, 9), r.consumedInputs());
    }

    @Test
    void duplicateCompletionOfASucceededNodeChangesNothing() {
        Runs.Driver run = Runs.Driver.start(TickDispatchTest.CHAIN);
        run.tick();
        run.tick(completed(8, "a", 1));
        RunSnapshot before = run.snapshot;

        TickResult r = Runs.tick(before, new Input.TaskCompleted(9, "a", 1, json("\"different\"")));

        assertUnchanged(before, r);
        assertEquals(ids(9), r.consumedInputs());
    }

    @Test
    void inputsForUnknownNodesAreConsumedButChangeNothing() {
        RunSnapshot before = aRunningAttempt2();
        TickResult r = Runs.tick(before, completed(1, "nope", 1), failed(2, "nope", 1, true),
                new Input.TimerFired(3, "nope"));
        assertUnchanged(before, r);
        assertEquals(ids(1, 2, 3), r.consumedInputs());
    }

    @ParameterizedTest
    @EnumSource(value = RunStatus.class, names = {"SUCCEEDED", "FAILED", "CANCELLED"})
    void terminalRunConsumesEverythingAndChangesNothing(RunStatus terminal) {
        RunSnapshot running = aRunningAttempt2();
        RunSnapshot before = Runs.withNodes(running, terminal, Map.of());

        TickResult r = Runs.tick(before,
                completed(1, "a", 2),
                failed(2, "a", 2, true),
                new Input.TimerFired(3, "a"),
                signal(4, "go", "{}"),
                new Input.CancelRequested(5, "stop"),
                new Input.ForceFail(6, "stuck", before.lastSeq()));

        assertUnchanged(before, r);
        assertEquals(ids(1, 2, 3, 4, 5, 6), r.consumedInputs());
    }

    @Test
    void terminalRunWithoutInputsIsANoop() {
        RunSnapshot before = Runs.withNodes(aRunningAttempt2(), RunStatus.CANCELLED, Map.of());
        TickResult r = Runs.tick(before);
        assertTrue(r.isNoop());
        assertNull(r.output());
    }

    @Test
    void inputsAfterTheRunEndsInTheSameTickAreConsumedWithoutEffect() {
        RunSnapshot before = aRunningAttempt2();

        TickResult r = Runs.tick(before, new Input.CancelRequested(1, "stop"), completed(2, "a", 2));

        assertEquals(RunStatus.CANCELLED, r.status());
        assertEquals(NodeStatus.CANCELLED, r.nodes().get("a").state());
        assertEquals(ids(1, 2), r.consumedInputs());
    }

    @Test
    void inputsWithoutAnInboxRowAreNotReportedAsConsumed() {
        RunSnapshot before = aRunningAttempt2();
        TickResult r = Runs.tick(before, new Input.TimerFired(0, "a"));
        assertUnchanged(before, r);
        assertTrue(r.consumedInputs().isEmpty());
        assertTrue(r.isNoop());
    }

    @Test
    void tickDoesNotChangeTheSnapshotItWasGiven() {
        RunSnapshot before = aRunningAttempt2();
        Map<String, NodeState> nodesBefore = Map.copyOf(before.nodes());

        Runs.tick(before, completed(1, "a", 2), new Input.CancelRequested(2, "x"));

        assertEquals(nodesBefore, before.nodes());
        assertEquals(RunStatus.RUNNING, before.status());
        assertEquals(List.copyOf(nodesBefore.keySet()).size(), before.nodes().size());
    }
}
