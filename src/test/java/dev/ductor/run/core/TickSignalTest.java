package dev.ductor.run.core;

import dev.ductor.run.core.Effect.ScheduleTimer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.ductor.run.core.Runs.NOW;
import static dev.ductor.run.core.Runs.completed;
import static dev.ductor.run.core.Runs.dispatched;
import static dev.ductor.run.core.Runs.ids;
import static dev.ductor.run.core.Runs.json;
import static dev.ductor.run.core.Runs.moves;
import static dev.ductor.run.core.Runs.signal;
import static dev.ductor.run.core.Runs.state;
import static dev.ductor.run.core.Runs.timers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Signal nodes wait for a named signal, take its payload as output, and may time out. */
@Tag("unit")
class TickSignalTest {

    static final String APPROVAL = """
            [
              {"id": "a", "type": "task", "handler": "noop"},
              {"id": "approve", "type": "signal", "signal": "approved", "timeout": "PT1H", "dependsOn": ["a"]},
              {"id": "c", "type": "task", "handler": "noop", "dependsOn": ["approve"]}
            ]""";

    /** Driven until {@code approve} waits. */
    private static Runs.Driver waitingForApproval() {
        Runs.Driver run = Runs.Driver.start(APPROVAL);
        run.tick();
        TickResult r = run.tick(completed(1, "a", 1));
        assertEquals(List.of("a:RUNNING->SUCCEEDED", "approve:PENDING->WAITING"), moves(r));
        return run;
    }

    @Test
    void signalNodeWaitsAndArmsItsTimeout() {
        Runs.Driver run = Runs.Driver.start(APPROVAL);
        run.tick();

        TickResult r = run.tick(completed(1, "a", 1));

        assertEquals(NodeStatus.WAITING, state(r, "approve"));
        assertEquals(List.of(new ScheduleTimer("approve", NOW.plus(Duration.ofHours(1)))), r.effects());
    }

    @Test
    void signalNodeWithoutTimeoutSchedulesNothing() {
        TickResult r = Runs.tick(Runs.fresh("""
                [{"id": "s", "type": "signal", "signal": "go"}]"""));

        assertEquals(List.of("s:PENDING->WAITING"), moves(r));
        assertTrue(r.effects().isEmpty());
    }

    @Test
    void matchingSignalSucceedsTheNodeWithItsPayloadAndIsConsumed() {
        Runs.Driver run = waitingForApproval();

        TickResult r = run.tick(signal(40, "approved", "{\"by\": \"ann\"}"));

        assertEquals(List.of("approve:WAITING->SUCCEEDED", "c:PENDING->RUNNING"), moves(r));
        assertEquals(json("{\"by\": \"ann\"}"), r.nodes().get("approve").output());
        assertEquals(ids(40), r.consumedInputs());
        assertEquals(List.of("c#1"), dispatched(r));
    }

    @Test
    void signalNoNodeWillEverWaitForIsDiscardedWithoutACommit() {
        Runs.Driver run = waitingForApproval();

        TickResult r = run.tick(signal(40, "rejected", "{}"));

        assertTrue(r.transitions().isEmpty());
        assertFalse(r.consumedInputs().contains(40L));
        assertTrue(r.discardedInputs().contains(40L), "dropped, so it is not re-read by every later tick");
        assertTrue(r.isNoop(), "dropping it writes nothing to the run");
        assertEquals(NodeStatus.WAITING, state(r, "approve"));
    }

    @Test
    void signalArrivingBeforeTheNodeWaitsStaysInTheInboxAndIsDeliveredWhenItWaits() {
        Runs.Driver run = Runs.Driver.start(APPROVAL);
        run.tick();
        var early = signal(40, "approved", "{\"early\": true}");

        TickResult tooEarly = run.tick(early);
        assertTrue(tooEarly.transitions().isEmpty());
        assertFalse(tooEarly.consumedInputs().contains(40L), "kept for later");
        assertEquals(NodeStatus.PENDING, state(tooEarly, "approve"));

        // the shell passes the unconsumed inbox row again with the next tick
        TickResult r = run.tick(completed(1, "a", 1), early);

        assertEquals(List.of("a:RUNNING->SUCCEEDED", "approve:PENDING->WAITING", "approve:WAITING->SUCCEEDED",
                "c:PENDING->RUNNING"), moves(r));
        assertEquals(ids(1, 40), r.consumedInputs());
        assertEquals(json("{\"early\": true}"), r.nodes().get("approve").output());
        assertEquals(List.of("c#1"), dispatched(r));
    }

    @Test
    void signalGivenWithTheFirstTickOfARootSignalNodeIsDelivered() {
        TickResult r = Runs.tick(Runs.fresh("""
                [{"id": "s", "type": "signal", "signal": "go"}]"""), signal(9, "go", "7"));

        assertEquals(List.of("s:PENDING->WAITING", "s:WAITING->SUCCEEDED", "run:RUNNING->SUCCEEDED"), moves(r));
        assertEquals(json("{\"s\": 7}"), r.output());
        assertEquals(ids(9), r.consumedInputs());
    }

    @Test
    void signalNotPassedAgainLeavesTheNodeWaiting() {
        Runs.Driver run = Runs.Driver.start(APPROVAL);
        run.tick();
        run.tick(signal(40, "approved", "{}"));

        TickResult r = run.tick(completed(1, "a", 1));

        assertEquals(NodeStatus.WAITING, state(r, "approve"), "the tick keeps no memory of earlier inputs");
    }

    @Test
    void timeoutOfAWaitingSignalFailsTheNodeAndTheRun() {
        Runs.Driver run = waitingForApproval();

        TickResult r = run.tick(NOW.plus(Duration.ofHours(1)), new Input.TimerFired(0, "approve"));

        assertEquals(List.of("approve:WAITING->FAILED", "c:PENDING->SKIPPED", "run:RUNNING->FAILED"), moves(r));
        assertEquals(RunStatus.FAILED, r.status());
        assertTrue(r.nodes().get("approve").error().contains("approved"), r.nodes().get("approve").error());
        assertNull(r.output());
    }

    @Test
    void timeoutAfterTheSignalArrivedIsIgnored() {
        Runs.Driver run = waitingForApproval();
        run.tick(signal(40, "approved", "{}"));
        RunSnapshot before = run.snapshot;

        TickResult r = Runs.tick(before, new Input.TimerFired(0, "approve"));

        assertTrue(r.isNoop());
        assertEquals(NodeStatus.SUCCEEDED, state(r, "approve"));
    }

    @Test
    void signalAndTimeoutInOneTickFollowInputOrder() {
        Runs.Driver signalFirst = waitingForApproval();
        TickResult won = signalFirst.tick(signal(40, "approved", "{}"), new Input.TimerFired(0, "approve"));
        assertEquals(NodeStatus.SUCCEEDED, state(won, "approve"));
        assertEquals(RunStatus.RUNNING, won.status());

        Runs.Driver timeoutFirst = waitingForApproval();
        TickResult lost = timeoutFirst.tick(new Input.TimerFired(0, "approve"), signal(40, "approved", "{}"));
        assertEquals(NodeStatus.FAILED, state(lost, "approve"));
        assertEquals(RunStatus.FAILED, lost.status());
    }

    @Test
    void oneSignalSucceedsEveryNodeWaitingForIt() {
        Runs.Driver run = Runs.Driver.start("""
                [
                  {"id": "s1", "type": "signal", "signal": "go"},
                  {"id": "s2", "type": "signal", "signal": "go"},
                  {"id": "other", "type": "signal", "signal": "stop"}
                ]""");
        TickResult first = run.tick();
        assertEquals(List.of("s1:PENDING->WAITING", "s2:PENDING->WAITING", "other:PENDING->WAITING"), moves(first));

        TickResult r = run.tick(signal(5, "go", "{\"n\": 1}"));

        assertEquals(List.of("s1:WAITING->SUCCEEDED", "s2:WAITING->SUCCEEDED"), moves(r));
        assertEquals(json("{\"n\": 1}"), r.nodes().get("s1").output());
        assertEquals(json("{\"n\": 1}"), r.nodes().get("s2").output());
        assertEquals(NodeStatus.WAITING, state(r, "other"));
        assertEquals(ids(5), r.consumedInputs());
    }

    /**
     * Two nodes that start waiting for the same signal in the same tick are symmetric, so an early signal
     * must reach both, as it does when both were already waiting.
     */
    @Test
    void earlySignalReachesEveryNodeThatStartsWaitingForItInTheSameTick() {
        TickResult r = Runs.tick(Runs.fresh("""
                [
                  {"id": "s1", "type": "signal", "signal": "go"},
                  {"id": "s2", "type": "signal", "signal": "go"}
                ]"""), signal(5, "go", "{\"n\": 1}"));

        assertEquals(NodeStatus.SUCCEEDED, state(r, "s1"));
        assertEquals(NodeStatus.SUCCEEDED, state(r, "s2"));
        assertEquals(RunStatus.SUCCEEDED, r.status());
        assertEquals(ids(5), r.consumedInputs());
    }

    @Test
    void waitingSignalNodeIsCancelledWithTheRun() {
        Runs.Driver run = waitingForApproval();

        TickResult r = run.tick(new Input.CancelRequested(3, "changed my mind"));

        assertEquals(List.of("approve:WAITING->CANCELLED", "c:PENDING->CANCELLED", "run:RUNNING->CANCELLED"), moves(r));
        assertTrue(timers(r).isEmpty());
    }
}
