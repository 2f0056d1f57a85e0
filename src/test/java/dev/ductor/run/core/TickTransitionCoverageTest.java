package dev.ductor.run.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static dev.ductor.run.core.Runs.completed;
import static dev.ductor.run.core.Runs.failed;
import static dev.ductor.run.core.Runs.signal;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every move the tick can make, gathered from small scenarios: each is one the tables allow, and together
 * they are every table entry a tick reaches (SKIPPED and moves out of FAILED belong to operator actions).
 */
@Tag("unit")
class TickTransitionCoverageTest {

    @Test
    void scenariosReachEveryTickTransitionAndOnlyLegalOnes() {
        List<Transition> all = new ArrayList<>();

        Runs.Driver chain = Runs.Driver.start(TickRetryTest.RETRYING);
        all.addAll(chain.tick().transitions());                                   // PENDING->RUNNING
        all.addAll(chain.tick(failed(1, "a", 1, true)).transitions());           // RUNNING->RUNNING
        all.addAll(chain.tick(completed(2, "a", 2)).transitions());              // RUNNING->SUCCEEDED
        all.addAll(chain.tick(completed(3, "b", 1)).transitions());              // run RUNNING->SUCCEEDED

        Runs.Driver failing = Runs.Driver.start(TickRetryTest.NO_RETRY);
        failing.tick();
        all.addAll(failing.tick(failed(1, "a", 1, false)).transitions());        // RUNNING->FAILED, PENDING->SKIPPED, run ->FAILED

        Runs.Driver pendingCancelled = Runs.Driver.start(TickRetryTest.NO_RETRY);
        pendingCancelled.tick();
        all.addAll(pendingCancelled.tick(new Input.CancelRequested(1, "x")).transitions()); // PENDING->CANCELLED

        Runs.Driver expressions = Runs.Driver.start("""
                [{"id": "e", "type": "task", "handler": "noop", "forEach": "[]"},
                 {"id": "f", "type": "task", "handler": "noop", "input": {"x": "${{ input.missing.field }}"}}]""");
        all.addAll(expressions.tick().transitions());                             // PENDING->SUCCEEDED, PENDING->FAILED

        Runs.Driver timer = Runs.Driver.start(TickTimerTest.TIMER_THEN_TASK);
        all.addAll(timer.tick().transitions());                                   // PENDING->WAITING
        all.addAll(timer.tick(new Input.TimerFired(0, "cool")).transitions());   // WAITING->SUCCEEDED
        all.addAll(timer.tick(new Input.CancelRequested(1, "x")).transitions()); // RUNNING->CANCELLED, run ->CANCELLED

        Runs.Driver waiting = Runs.Driver.start(TickSignalTest.APPROVAL);
        waiting.tick();
        waiting.tick(completed(1, "a", 1));
        all.addAll(waiting.tick(new Input.TimerFired(0, "approve")).transitions()); // WAITING->FAILED

        Runs.Driver cancelled = Runs.Driver.start("""
                [{"id": "s", "type": "signal", "signal": "go"}]""");
        cancelled.tick(signal(5, "stop", "{}"));
        all.addAll(cancelled.tick(new Input.ForceFail(1, "stuck", cancelled.snapshot.lastSeq())).transitions()); // WAITING->CANCELLED

        Set<String> seen = new TreeSet<>();
        for (Transition t : all) {
            String kind = t.node() == null ? "run" : "node";
            if (t.node() == null) {
                assertDoesNotThrow(() -> RunStatus.valueOf(t.from()).checkMoveTo(RunStatus.valueOf(t.to())), t.toString());
            } else {
                assertDoesNotThrow(() -> NodeStatus.valueOf(t.from()).checkMoveTo(NodeStatus.valueOf(t.to())), t.toString());
            }
            seen.add(kind + " " + t.from() + "->" + t.to());
        }

        assertEquals(new TreeSet<>(Set.of(
                "node PENDING->RUNNING", "node PENDING->WAITING", "node PENDING->CANCELLED", "node PENDING->SKIPPED",
                "node PENDING->SUCCEEDED", "node PENDING->FAILED",
                "node RUNNING->RUNNING", "node RUNNING->SUCCEEDED", "node RUNNING->FAILED", "node RUNNING->CANCELLED",
                "node WAITING->SUCCEEDED", "node WAITING->FAILED", "node WAITING->CANCELLED",
                "run RUNNING->SUCCEEDED", "run RUNNING->FAILED", "run RUNNING->CANCELLED")), seen);
    }
}
