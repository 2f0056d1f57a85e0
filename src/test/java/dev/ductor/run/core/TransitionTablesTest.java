package dev.ductor.run.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The legal-move tables, checked cell by cell against an independent copy of the intended tables. */
@Tag("unit")
class TransitionTablesTest {

    private static final Map<NodeStatus, Set<NodeStatus>> NODE_LEGAL = Map.of(
            NodeStatus.PENDING, EnumSet.of(NodeStatus.RUNNING, NodeStatus.WAITING, NodeStatus.SUCCEEDED, NodeStatus.FAILED,
                    NodeStatus.SKIPPED, NodeStatus.CANCELLED),
            NodeStatus.RUNNING, EnumSet.of(NodeStatus.RUNNING, NodeStatus.SUCCEEDED, NodeStatus.FAILED, NodeStatus.SKIPPED,
                    NodeStatus.CANCELLED),
            NodeStatus.WAITING, EnumSet.of(NodeStatus.SUCCEEDED, NodeStatus.FAILED, NodeStatus.SKIPPED, NodeStatus.CANCELLED),
            NodeStatus.FAILED, EnumSet.of(NodeStatus.RUNNING, NodeStatus.SKIPPED, NodeStatus.CANCELLED),
            NodeStatus.SUCCEEDED, EnumSet.noneOf(NodeStatus.class),
            NodeStatus.SKIPPED, EnumSet.noneOf(NodeStatus.class),
            NodeStatus.CANCELLED, EnumSet.noneOf(NodeStatus.class));

    private static final Map<RunStatus, Set<RunStatus>> RUN_LEGAL = Map.of(
            RunStatus.RUNNING, EnumSet.of(RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED),
            RunStatus.SUCCEEDED, EnumSet.noneOf(RunStatus.class),
            RunStatus.FAILED, EnumSet.noneOf(RunStatus.class),
            RunStatus.CANCELLED, EnumSet.noneOf(RunStatus.class));

    static Stream<Arguments> nodePairs() {
        return EnumSet.allOf(NodeStatus.class).stream()
                .flatMap(from -> EnumSet.allOf(NodeStatus.class).stream()
                        .map(to -> Arguments.of(from, to, NODE_LEGAL.get(from).contains(to))));
    }

    static Stream<Arguments> runPairs() {
        return EnumSet.allOf(RunStatus.class).stream()
                .flatMap(from -> EnumSet.allOf(RunStatus.class).stream()
                        .map(to -> Arguments.of(from, to, RUN_LEGAL.get(from).contains(to))));
    }

    @ParameterizedTest(name = "node {0} -> {1} legal={2}")
    @MethodSource("nodePairs")
    void nodeMoveIsAllowedExactlyWhenTheTableSaysSo(NodeStatus from, NodeStatus to, boolean legal) {
        if (legal) {
            assertDoesNotThrow(() -> from.checkMoveTo(to));
        } else {
            IllegalTransitionException e = assertThrows(IllegalTransitionException.class, () -> from.checkMoveTo(to));
            assertEquals("illegal node transition " + from + " -> " + to, e.getMessage());
        }
    }

    @ParameterizedTest(name = "run {0} -> {1} legal={2}")
    @MethodSource("runPairs")
    void runMoveIsAllowedExactlyWhenTheTableSaysSo(RunStatus from, RunStatus to, boolean legal) {
        if (legal) {
            assertDoesNotThrow(() -> from.checkMoveTo(to));
        } else {
            IllegalTransitionException e = assertThrows(IllegalTransitionException.class, () -> from.checkMoveTo(to));
            assertEquals("illegal run transition " + from + " -> " + to, e.getMessage());
        }
    }

    @Nested
    class NamedIllegalMoves {

        @Test
        void succeededNodeCannotRunAgain() {
            assertThrows(IllegalTransitionException.class, () -> NodeStatus.SUCCEEDED.checkMoveTo(NodeStatus.RUNNING));
        }

        @Test
        void waitingNodeCannotBecomeRunningOrWaitAgain() {
            assertThrows(IllegalTransitionException.class, () -> NodeStatus.WAITING.checkMoveTo(NodeStatus.RUNNING));
            assertThrows(IllegalTransitionException.class, () -> NodeStatus.WAITING.checkMoveTo(NodeStatus.WAITING));
        }

        @Test
        void aFinishedNodeCannotGoBackToPendingOrWaiting() {
            assertThrows(IllegalTransitionException.class, () -> NodeStatus.SUCCEEDED.checkMoveTo(NodeStatus.PENDING));
            assertThrows(IllegalTransitionException.class, () -> NodeStatus.FAILED.checkMoveTo(NodeStatus.WAITING));
        }

        @Test
        void terminalRunNeverMoves() {
            assertThrows(IllegalTransitionException.class, () -> RunStatus.SUCCEEDED.checkMoveTo(RunStatus.RUNNING));
            assertThrows(IllegalTransitionException.class, () -> RunStatus.CANCELLED.checkMoveTo(RunStatus.FAILED));
            assertThrows(IllegalTransitionException.class, () -> RunStatus.RUNNING.checkMoveTo(RunStatus.RUNNING));
        }

        @Test
        void illegalTransitionIsAnIllegalStateException() {
            assertTrue(IllegalStateException.class.isAssignableFrom(IllegalTransitionException.class));
        }
    }

    @Nested
    class Predicates {

        @Test
        void succeededFailedSkippedAndCancelledAreDoneSoDependantsCanBeDecided() {
            for (NodeStatus s : NodeStatus.values()) {
                assertEquals(s == NodeStatus.SUCCEEDED || s == NodeStatus.FAILED || s == NodeStatus.SKIPPED
                        || s == NodeStatus.CANCELLED, s.isDone(), s.name());
            }
        }

        @Test
        void pendingRunningAndWaitingAreOpen() {
            for (NodeStatus s : NodeStatus.values()) {
                assertEquals(s == NodeStatus.PENDING || s == NodeStatus.RUNNING || s == NodeStatus.WAITING, s.isOpen(),
                        s.name());
            }
        }

        @Test
        void everyRunStatusButRunningIsTerminal() {
            assertFalse(RunStatus.RUNNING.isTerminal());
            assertTrue(RunStatus.SUCCEEDED.isTerminal());
            assertTrue(RunStatus.FAILED.isTerminal());
            assertTrue(RunStatus.CANCELLED.isTerminal());
        }
    }
}
