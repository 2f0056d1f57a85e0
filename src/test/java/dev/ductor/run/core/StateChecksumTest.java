package dev.ductor.run.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static dev.ductor.run.core.Runs.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checksum follows the meaning of what a tick decides on (status, seq, tier, output, node states), not its
 * in-memory or stored layout; rows sealed in the legacy form (node states only) still match.
 */
@Tag("unit")
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

    private static StateChecksum.Covered running(Map<String, NodeState> nodes) {
        return new StateChecksum.Covered("RUNNING", 3, "standard", null, nodes);
    }

    private static String sum(Object... idAndState) {
        return StateChecksum.of(running(ordered(idAndState)));
    }

    @Test
    void isAVersionedHexSha256() {
        assertTrue(sum("x", A).matches("v2:[0-9a-f]{64}"), sum("x", A));
    }

    @Test
    void equalStatesGiveEqualChecksumsWhateverTheMapOrder() {
        assertEquals(sum("x", A, "y", B), sum("y", B, "x", A));
        assertEquals(sum("x", A, "y", B), StateChecksum.of(running(Map.of("y", B, "x", A))));
    }

    @Test
    void differentRunStatusGivesDifferentChecksum() {
        Map<String, NodeState> nodes = ordered("x", A);
        assertNotEquals(StateChecksum.of(running(nodes)), StateChecksum.of(new StateChecksum.Covered("SUCCEEDED", 3, "standard", null, nodes)));
    }

    @Test
    void differentSeqGivesDifferentChecksum() {
        Map<String, NodeState> nodes = ordered("x", A);
        assertNotEquals(StateChecksum.of(running(nodes)), StateChecksum.of(new StateChecksum.Covered("RUNNING", 4, "standard", null, nodes)));
    }

    @Test
    void differentTierGivesDifferentChecksum() {
        Map<String, NodeState> nodes = ordered("x", A);
        assertNotEquals(StateChecksum.of(running(nodes)), StateChecksum.of(new StateChecksum.Covered("RUNNING", 3, "bulk", null, nodes)));
    }

    @Test
    void differentRunOutputGivesDifferentChecksumButItsLayoutDoesNot() {
        Map<String, NodeState> nodes = ordered("x", A);
        String some = StateChecksum.of(new StateChecksum.Covered("SUCCEEDED", 3, "standard", json("{\"a\": 1, \"b\": 2}"), nodes));
        assertNotEquals(some, StateChecksum.of(new StateChecksum.Covered("SUCCEEDED", 3, "standard", json("{\"a\": 1}"), nodes)));
        assertNotEquals(some, StateChecksum.of(new StateChecksum.Covered("SUCCEEDED", 3, "standard", null, nodes)));
        assertEquals(some, StateChecksum.of(new StateChecksum.Covered("SUCCEEDED", 3, "standard", json("{ \"b\": 2, \"a\": 1 }"), nodes)));
        assertEquals(StateChecksum.of(running(nodes)), StateChecksum.of(new StateChecksum.Covered("RUNNING", 3, "standard", json("null"), nodes)),
                "no output and a JSON null are the same stored value");
    }

    @Test
    void fieldsCannotBleedIntoEachOther() {
        Map<String, NodeState> nodes = ordered("x", A);
        assertNotEquals(StateChecksum.of(new StateChecksum.Covered("RUNNING", 31, "standard", null, nodes)),
                StateChecksum.of(new StateChecksum.Covered("RUNNING", 3, "1standard", null, nodes)));
        assertNotEquals(StateChecksum.of(new StateChecksum.Covered("RUNNING\"", 3, "standard", null, nodes)),
                StateChecksum.of(new StateChecksum.Covered("RUNNING", 3, "\"standard", null, nodes)));
    }

    @Test
    void matchesItsOwnSealAndNothingElse() {
        StateChecksum.Covered state = running(ordered("x", A));
        assertTrue(StateChecksum.matches(StateChecksum.of(state), state));
        assertFalse(StateChecksum.matches(StateChecksum.of(running(ordered("x", B))), state));
        assertFalse(StateChecksum.matches(null, state));
        assertFalse(StateChecksum.matches("tampered", state));
        assertFalse(StateChecksum.matches("v2:tampered", state));
    }

    /** Computed by the code that wrote rows before v2: SHA-256 of {@code "approve"|WAITING|0|null|\n}. */
    private static final String LEGACY_SEAL_OF_A_PARKED_RUN = "644fe2a88c63d4e7a4992c9bf9795fb7054928562f3f8519cca7e1ec29cefe2b";

    @Test
    void aRowSealedInTheLegacyFormStillMatchesOnItsNodeStates() {
        Map<String, NodeState> parked = Map.of("approve", new NodeState(NodeStatus.WAITING, 0, null, null));
        StateChecksum.Covered state = running(parked);
        assertTrue(StateChecksum.matches(LEGACY_SEAL_OF_A_PARKED_RUN, state));
        assertFalse(StateChecksum.matches(LEGACY_SEAL_OF_A_PARKED_RUN,
                running(Map.of("approve", new NodeState(NodeStatus.SUCCEEDED, 0, null, null)))));
        assertNotEquals(LEGACY_SEAL_OF_A_PARKED_RUN, StateChecksum.of(state).substring(3), "the new form covers more");
        assertFalse(StateChecksum.matches("v2:" + LEGACY_SEAL_OF_A_PARKED_RUN, state), "a prefix alone does not make a seal");
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
    void differentLeaseRetriesGiveDifferentChecksum() {
        assertNotEquals(sum("x", A), sum("x", new NodeState(A.state(), A.attempts(), A.output(), A.error(), 1)));
        assertNotEquals(sum("x", new NodeState(A.state(), 3, A.output(), A.error(), 1)),
                sum("x", new NodeState(A.state(), 3, A.output(), A.error(), 2)));
    }

    /** Computed by the code before {@code leaseRetries} existed: rows sealed then must still match. */
    private static final String V2_SEAL_BEFORE_LEASE_RETRIES =
            "v2:cc6dd684a7a498593b4a93f5511ff619b4fe9a309d5709e07eb6ce884a47ae0b";

    @Test
    void aNodeWithNoLeaseRetriesSealsAsBeforeTheFieldExisted() {
        assertEquals(V2_SEAL_BEFORE_LEASE_RETRIES,
                StateChecksum.of(running(Map.of("a", new NodeState(NodeStatus.RUNNING, 2, null, "boom")))));
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
        assertEquals(StateChecksum.of(running(r.nodes())), StateChecksum.of(running(Runs.next(Runs.fresh(TickDispatchTest.FAN), r).nodes())));
    }
}
