package dev.ductor.run.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ductor.run.core.Runs.NOW;
import static dev.ductor.run.core.Runs.completed;
import static dev.ductor.run.core.Runs.failed;
import static dev.ductor.run.core.Runs.signal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The tick is a function: same snapshot, inputs and time give the same result; nothing to do is a no-op. */
@Tag("unit")
class TickDeterminismTest {

    static final String MANY = """
            [
              {"id": "a", "type": "task", "handler": "noop"},
              {"id": "b", "type": "task", "handler": "fail", "retry": {"maxAttempts": 4, "backoff": "PT0.5S"}, "dependsOn": ["a"]},
              {"id": "c", "type": "signal", "signal": "go", "timeout": "PT10M", "dependsOn": ["a"]},
              {"id": "d", "type": "timer", "duration": "PT30S", "dependsOn": ["a"]},
              {"id": "e", "type": "task", "handler": "echo", "dependsOn": ["b", "c", "d"]}
            ]""";

    @Test
    void sameSnapshotInputsAndTimeGiveEqualResults() {
        Runs.Driver run = Runs.Driver.start(MANY);
        run.tick();
        RunSnapshot snapshot = run.snapshot;
        List<Input> inputs = List.of(completed(1, "a", 1), signal(2, "go", "{\"x\": [1, 2]}"), signal(3, "nobody", "{}"));

        TickResult first = Tick.tick(snapshot, inputs, NOW);
        TickResult second = Tick.tick(snapshot, inputs, NOW);

        assertEquals(first, second);
        assertEquals(first.transitions(), second.transitions());
        assertEquals(first.effects(), second.effects());
        assertEquals(sealed(first), sealed(second));
    }

    @Test
    void equalButSeparatelyBuiltSnapshotsGiveEqualResults() {
        RunSnapshot one = Runs.fresh(MANY);
        RunSnapshot two = Runs.fresh(MANY);
        List<Input> inputs = List.of(failed(1, "b", 1, true), completed(2, "a", 1));

        assertEquals(Tick.tick(one, inputs, NOW), Tick.tick(two, inputs, NOW));
    }

    @Test
    void wholeRunReplaysIdentically() {
        assertEquals(drive(), drive());
    }

    private List<TickResult> drive() {
        Runs.Driver run = Runs.Driver.start(MANY);
        return List.of(
                run.tick(),
                run.tick(completed(1, "a", 1)),
                run.tick(NOW.plusSeconds(1), failed(2, "b", 1, true), new Input.TimerFired(0, "d")),
                run.tick(NOW.plusSeconds(2), completed(3, "b", 2), signal(4, "go", "true")),
                run.tick(NOW.plusSeconds(3), completed(5, "e", 1)));
    }

    @Test
    void replayedRunEndsSucceeded() {
        List<TickResult> results = drive();
        TickResult last = results.get(results.size() - 1);
        assertEquals(RunStatus.SUCCEEDED, last.status());
        assertEquals(Runs.json("{\"a\": {\"from\": \"a\", \"attempt\": 1}, \"b\": {\"from\": \"b\", \"attempt\": 2},"
                + " \"c\": true, \"d\": \"2030-01-01T12:00:01Z\", \"e\": {\"from\": \"e\", \"attempt\": 1}}"), last.output());
    }

    @Test
    void tickWithNothingReadyAndNoInputsIsANoop() {
        Runs.Driver run = Runs.Driver.start(MANY);
        run.tick();
        RunSnapshot before = run.snapshot;

        TickResult r = Runs.tick(before);

        assertTrue(r.isNoop());
        assertFalse(r.madeProgress());
        assertTrue(r.effects().isEmpty());
        assertEquals(before.lastSeq(), r.lastSeq());
        assertEquals(before.nodes(), r.nodes());
    }

    @Test
    void freshTickIsNotANoop() {
        assertFalse(Runs.tick(Runs.fresh(MANY)).isNoop());
    }

    @Test
    void resultIsImmutable() {
        TickResult r = Runs.tick(Runs.fresh(MANY));
        org.junit.jupiter.api.Assertions.assertThrows(UnsupportedOperationException.class,
                () -> r.nodes().put("x", NodeState.pending()));
        org.junit.jupiter.api.Assertions.assertThrows(UnsupportedOperationException.class, () -> r.transitions().clear());
        org.junit.jupiter.api.Assertions.assertThrows(UnsupportedOperationException.class, () -> r.effects().clear());
    }

    /**
     * Equal maps may iterate in different orders, and an order that varies would make the same state serialize to
     * other bytes (node_states, the API's nodes). The ids are in neither alphabetical nor hash order here.
     */
    @Test
    void nodesComeOutInTheDefinitionsOrderEveryTime() {
        String nodes = """
                [
                  {"id": "zeta", "type": "task", "handler": "noop"},
                  {"id": "alpha", "type": "task", "handler": "noop"},
                  {"id": "mid", "type": "task", "handler": "noop", "dependsOn": ["zeta", "alpha"]},
                  {"id": "beta", "type": "timer", "duration": "PT1S"}
                ]""";
        List<String> order = List.of("zeta", "alpha", "mid", "beta");
        TickResult first = Runs.tick(Runs.fresh(nodes));
        TickResult again = Runs.tick(Runs.fresh(nodes));

        assertEquals(order, List.copyOf(first.nodes().keySet()));
        assertEquals(order, List.copyOf(again.nodes().keySet()));
        assertEquals(first.nodes().toString(), again.nodes().toString(), "the same state, the same text");
    }

    private static String sealed(TickResult result) {
        return StateChecksum.of(new StateChecksum.Covered(result.status().name(), result.lastSeq(), "standard",
                result.output(), result.nodes()));
    }
}
