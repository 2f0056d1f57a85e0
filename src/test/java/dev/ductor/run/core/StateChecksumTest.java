package dev.ductor.run.core;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static dev.ductor.run.core.Runs.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checksum follows the node states' meaning, not their in-memory or stored layout. */
class StateChecksumTest {

    private static final NodeState A = new NodeState(NodeStatus.SUCCEEDED, 2, json("{\"a\": 1, \"b\": 2}"), null);
    private static final NodeState B = new NodeState(NodeStatus.RUNNING, 1, null, "boom");

    private static Map<String, NodeState> ordered(Object... idAndState) {
        Map<String, NodeState> nodes = new LinkedHashMap<>();
        for (int i = 0; i < idAndState.length; i += 2) {
            nodes.put((String) idAndState[i], (NodeState) idAndState[i + 1]);
        }
        return nodes;
    }

    private static String sum(Object... idAndState) {
        return StateChecksum.of(ordered(idAndState));
    }

    @Test
    void isAHexSha256() {
        assertTrue(sum("x", A).matches("[0-9a-f]{64}"));
    }

    @Test
    void equalStatesGiveEqualChecksumsWhateverTheMapOrder() {
        assertEquals(sum("x", A, "y", B), sum("y", B, "x", A));
        assertEquals(sum("x", A, "y", B), StateChecksum.of(Map.of("y", B, "x", A)));
    }

    @Test
    void outputKeyOrderDoesNotMatter() {
        NodeState reordered = new NodeState(NodeStatus.SUCCEEDED, 2, json("{\"b\": 2, \"a\": 1}"), null);
        assertEquals(sum("x", A), sum("x", reordered));

        NodeState nested1 = new NodeState(NodeStatus.SUCCEEDED, 1, json("{\"o\": {\"p\": [1, {\"q\": 1, \"r\": 2}], \"s\": \"t\"}}"), null);
        NodeState nested2 = new NodeState(NodeStatus.SUCCEEDED, 1, json("{\"o\": {\"s\": \"t\", \"p\": [1, {\"r\": 2, \"q\": 1}]}}"), null);
        assertEquals(sum("x", nested1), sum("x", nested2));
    }

    @Test
    void whitespaceAndNumberSpellingInOutputDoNotMatter() {
        NodeState compact = new NodeState(NodeStatus.SUCCEEDED, 1, json("{\"n\":1.50}"), null);
        NodeState spaced = new NodeState(NodeStatus.SUCCEEDED, 1, json("{ \"n\" : 1.5 }"), null);
        assertEquals(sum("x", compact), sum("x", spaced));
    }

    @Test
    void differentNodeIdGivesDifferentChecksum() {
        assertNotEquals(sum("x", A), sum("z", A));
    }

    @Test
    void differentStateGivesDifferentChecksum() {
        assertNotEquals(sum("x", A), sum("x", new NodeState(NodeStatus.SKIPPED, A.attempts(), A.output(), A.error())));
    }

    @Test
    void differentAttemptsGiveDifferentChecksum() {
        assertNotEquals(sum("x", A), sum("x", new NodeState(A.state(), 3, A.output(), A.error())));
    }

    @Test
    void differentOutputGivesDifferentChecksum() {
        assertNotEquals(sum("x", A), sum("x", new NodeState(A.state(), A.attempts(), json("{\"a\": 1, \"b\": 3}"), null)));
        assertNotEquals(sum("x", A), sum("x", new NodeState(A.state(), A.attempts(), null, null)));
        assertNotEquals(sum("x", new NodeState(A.state(), 1, json("1"), null)),
                sum("x", new NodeState(A.state(), 1, json("\"1\""), null)), "number vs string");
        assertNotEquals(sum("x", new NodeState(A.state(), 1, json("true"), null)),
                sum("x", new NodeState(A.state(), 1, json("\"true\""), null)), "boolean vs string");
    }

    @Test
    void differentErrorGivesDifferentChecksum() {
        assertNotEquals(sum("x", B), sum("x", new NodeState(B.state(), B.attempts(), null, "bang")));
        assertNotEquals(sum("x", B), sum("x", new NodeState(B.state(), B.attempts(), null, null)));
        assertNotEquals(sum("x", new NodeState(B.state(), 1, null, "")), sum("x", new NodeState(B.state(), 1, null, null)));
    }

    @Test
    void extraNodeGivesDifferentChecksum() {
        assertNotEquals(sum("x", A), sum("x", A, "y", B));
    }

    @Test
    void separatorsInsideTextCannotForgeAnotherState() {
        NodeState tricky = new NodeState(NodeStatus.RUNNING, 1, null, "a\"|x");
        NodeState plain = new NodeState(NodeStatus.RUNNING, 1, null, "a");
        assertNotEquals(sum("x", tricky), sum("x", plain));
        assertNotEquals(sum("a|b", plain), sum("a", plain));
    }

    @Test
    void resultOfATickRoundTripsThroughASnapshot() {
        Runs.Driver run = Runs.Driver.start(TickDispatchTest.FAN);
        TickResult r = run.tick();
        run.tick(Runs.completed(1, "a", 1));
        assertEquals(StateChecksum.of(r.nodes()), StateChecksum.of(Runs.next(Runs.fresh(TickDispatchTest.FAN), r).nodes()));
    }
}
