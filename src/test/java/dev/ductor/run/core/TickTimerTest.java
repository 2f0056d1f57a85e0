package dev.ductor.run.core;

import dev.ductor.run.core.Effect.ScheduleTimer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.ductor.run.core.Runs.NOW;
import static dev.ductor.run.core.Runs.dispatched;
import static dev.ductor.run.core.Runs.ids;
import static dev.ductor.run.core.Runs.json;
import static dev.ductor.run.core.Runs.moves;
import static dev.ductor.run.core.Runs.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A timer node waits for its own timer and then lets its dependants start. */
@Tag("unit")
class TickTimerTest {

    static final String TIMER_THEN_TASK = """
            [
              {"id": "cool", "type": "timer", "duration": "PT5M"},
              {"id": "ship", "type": "task", "handler": "noop", "dependsOn": ["cool"]}
            ]""";

    @Test
    void startingTimerWaitsAndSchedulesItForNowPlusDuration() {
        TickResult r = Runs.tick(Runs.fresh(TIMER_THEN_TASK));

        assertEquals(List.of("cool:PENDING->WAITING"), moves(r));
        assertEquals(List.of(new ScheduleTimer("cool", NOW.plus(Duration.ofMinutes(5)))), r.effects());
        assertEquals(new NodeState(NodeStatus.WAITING, 0, null, null), r.nodes().get("cool"));
        assertEquals(NodeStatus.PENDING, state(r, "ship"));
    }

    @Test
    void firedTimerSucceedsTheNodeAndStartsDependants() {
        Runs.Driver run = Runs.Driver.start(TIMER_THEN_TASK);
        run.tick();

        TickResult r = run.tick(NOW.plusSeconds(300), new Input.TimerFired(0, "cool"));

        assertEquals(List.of("cool:WAITING->SUCCEEDED", "ship:PENDING->RUNNING"), moves(r));
        assertEquals(List.of("ship#1"), dispatched(r));
        assertTrue(r.consumedInputs().isEmpty(), "a timer on the wakeup has no inbox row");
    }

    @Test
    void repeatedTimerFiredIsANoop() {
        Runs.Driver run = Runs.Driver.start(TIMER_THEN_TASK);
        run.tick();
        run.tick(new Input.TimerFired(0, "cool"));
        RunSnapshot before = run.snapshot;

        TickResult again = Runs.tick(before, new Input.TimerFired(0, "cool"));
        assertTrue(again.isNoop());
        assertEquals(before.nodes(), again.nodes());

        TickResult fromInbox = Runs.tick(before, new Input.TimerFired(17, "cool"));
        assertTrue(fromInbox.transitions().isEmpty());
        assertEquals(ids(17), fromInbox.consumedInputs());
    }

    @Test
    void twoFiringsInOneTickCountOnce() {
        Runs.Driver run = Runs.Driver.start(TIMER_THEN_TASK);
        run.tick();

        TickResult r = run.tick(new Input.TimerFired(0, "cool"), new Input.TimerFired(0, "cool"));

        assertEquals(List.of("cool:WAITING->SUCCEEDED", "ship:PENDING->RUNNING"), moves(r));
    }

    @Test
    void timerFiredBeforeTheNodeWaitsChangesNothing() {
        RunSnapshot fresh = Runs.fresh("""
                [
                  {"id": "a", "type": "task", "handler": "noop"},
                  {"id": "cool", "type": "timer", "duration": "PT5S", "dependsOn": ["a"]}
                ]""");
        Runs.Driver run = new Runs.Driver(fresh);
        run.tick();
        RunSnapshot before = run.snapshot;

        TickResult r = Runs.tick(before, new Input.TimerFired(3, "cool"));

        assertTrue(r.transitions().isEmpty());
        assertEquals(NodeStatus.PENDING, state(r, "cool"));
        assertEquals(ids(3), r.consumedInputs());
    }

    @Test
    void runOfOnlyATimerSucceedsWithTheFireTimeAsTheTimersOutput() {
        Runs.Driver run = Runs.Driver.start("""
                [{"id": "t", "type": "timer", "duration": "PT0S"}]""");
        TickResult first = run.tick();
        assertEquals(List.of(new ScheduleTimer("t", NOW)), first.effects());

        TickResult r = run.tick(new Input.TimerFired(0, "t"));

        assertEquals(List.of("t:WAITING->SUCCEEDED", "run:RUNNING->SUCCEEDED"), moves(r));
        assertEquals(json("{\"t\": \"" + NOW + "\"}"), r.output());
    }

    @Test
    void cancelledRunHasNoOutputEvenWithSucceededNodes() {
        Runs.Driver run = Runs.Driver.start(TIMER_THEN_TASK);
        run.tick();
        run.tick(new Input.TimerFired(0, "cool"));

        TickResult r = run.tick(new Input.CancelRequested(1, "no"));
        assertNull(r.output());
    }
}
