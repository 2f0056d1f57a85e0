package dev.ductor.run.core;

import dev.ductor.run.core.Effect.DispatchTask;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.ductor.run.core.Runs.NOW;
import static dev.ductor.run.core.Runs.RUN_ID;
import static dev.ductor.run.core.Runs.RUN_INPUT;
import static dev.ductor.run.core.Runs.completed;
import static dev.ductor.run.core.Runs.dispatched;
import static dev.ductor.run.core.Runs.ids;
import static dev.ductor.run.core.Runs.json;
import static dev.ductor.run.core.Runs.moves;
import static dev.ductor.run.core.Runs.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which nodes a tick starts, and when a run of tasks is done. */
@Tag("unit")
class TickDispatchTest {

    static final String CHAIN = """
            [
              {"id": "a", "type": "task", "handler": "noop"},
              {"id": "b", "type": "task", "handler": "echo", "pool": "fast", "dependsOn": ["a"]},
              {"id": "c", "type": "task", "handler": "ext:billing", "input": {"x": 1}, "dependsOn": ["b"]}
            ]""";

    static final String FAN = """
            [
              {"id": "a", "type": "task", "handler": "noop"},
              {"id": "b", "type": "task", "handler": "noop", "dependsOn": ["a"]},
              {"id": "c", "type": "task", "handler": "noop", "dependsOn": ["a"]},
              {"id": "d", "type": "task", "handler": "noop", "dependsOn": ["a"]},
              {"id": "e", "type": "task", "handler": "noop", "dependsOn": ["b", "c", "d"]}
            ]""";

    @Nested
    class ChainOfThree {

        @Test
        void firstTickDispatchesOnlyTheFirstTask() {
            RunSnapshot fresh = Runs.fresh(CHAIN);
            TickResult r = Runs.tick(fresh);

            assertEquals(List.of(new DispatchTask("a", 1, "noop", null, RUN_INPUT, NOW)), r.effects());
            assertEquals(new NodeState(NodeStatus.RUNNING, 1, null, null), r.nodes().get("a"));
            assertEquals(NodeState.pending(), r.nodes().get("b"));
            assertEquals(NodeState.pending(), r.nodes().get("c"));
            assertEquals(List.of("a:PENDING->RUNNING"), moves(r));
            assertEquals(1, r.transitions().get(0).seq());
            assertEquals(1, r.lastSeq());
            assertEquals(RunStatus.RUNNING, r.status());
            assertNull(r.output());
            assertTrue(r.consumedInputs().isEmpty());
            assertFalse(r.isNoop());
            assertTrue(r.madeProgress());
        }

        @Test
        void completionSucceedsTheNodeAndDispatchesTheNext() {
            Runs.Driver run = new Runs.Driver(Runs.fresh(CHAIN));
            run.tick();

            TickResult r = run.tick(new Input.TaskCompleted(11, "a", 1, json("{\"reserved\": true}")));

            assertEquals(List.of("a:RUNNING->SUCCEEDED", "b:PENDING->RUNNING"), moves(r));
            assertEquals(new NodeState(NodeStatus.SUCCEEDED, 1, json("{\"reserved\": true}"), null), r.nodes().get("a"));
            assertEquals(new NodeState(NodeStatus.RUNNING, 1, null, null), r.nodes().get("b"));
            assertEquals(List.of(new DispatchTask("b", 1, "echo", "fast", RUN_INPUT, NOW)), r.effects());
            assertEquals(ids(11), r.consumedInputs());
            assertEquals(RunStatus.RUNNING, r.status());
        }

        @Test
        void finalCompletionSucceedsTheRunWithEveryNodesOutput() {
            Runs.Driver run = new Runs.Driver(Runs.fresh(CHAIN));
            run.tick();
            run.tick(new Input.TaskCompleted(11, "a", 1, json("{\"reserved\": true}")));
            TickResult third = run.tick(new Input.TaskCompleted(12, "b", 1, json("\"echoed\"")));
            assertEquals(List.of(new DispatchTask("c", 1, "ext:billing", null, json("{\"x\": 1}"), NOW)), third.effects(),
                    "a task with a static input gets it instead of the run's input");

            TickResult last = run.tick(new Input.TaskCompleted(13, "c", 1, json("[1, 2]")));

            assertEquals(List.of("c:RUNNING->SUCCEEDED", "run:RUNNING->SUCCEEDED"), moves(last));
            assertEquals(RunStatus.SUCCEEDED, last.status());
            assertEquals(json("{\"a\": {\"reserved\": true}, \"b\": \"echoed\", \"c\": [1, 2]}"), last.output());
            assertTrue(last.effects().isEmpty());
            assertEquals(ids(13), last.consumedInputs());
            assertEquals(7, last.lastSeq());
        }

        @Test
        void sequenceNumbersContinueGapFreeFromTheSnapshotsLastSeq() {
            RunSnapshot fresh = Runs.fresh(CHAIN);
            RunSnapshot at41 = new RunSnapshot(RUN_ID, fresh.definition(), RunStatus.RUNNING, fresh.nodes(), 41, 7, RUN_INPUT);
            Runs.Driver run = new Runs.Driver(at41);
            List<Long> seqs = new ArrayList<>();

            seqs.addAll(seqs(run.tick()));
            seqs.addAll(seqs(run.tick(completed(1, "a", 1))));
            seqs.addAll(seqs(run.tick(completed(2, "b", 1))));
            seqs.addAll(seqs(run.tick(completed(3, "c", 1))));

            assertEquals(List.of(42L, 43L, 44L, 45L, 46L, 47L, 48L), seqs);
            assertEquals(48, run.snapshot.lastSeq());
            assertEquals(11, run.snapshot.version());
        }

        private List<Long> seqs(TickResult r) {
            return r.transitions().stream().map(Transition::seq).toList();
        }
    }

    @Nested
    class FanOutFanIn {

        @Test
        void allBranchesAreDispatchedInTheTickThatCompletesTheirCommonDependency() {
            Runs.Driver run = new Runs.Driver(Runs.fresh(FAN));
            assertEquals(List.of("a#1"), dispatched(run.tick()));

            TickResult r = run.tick(completed(1, "a", 1));

            assertEquals(List.of("b#1", "c#1", "d#1"), dispatched(r));
            assertEquals(List.of("a:RUNNING->SUCCEEDED", "b:PENDING->RUNNING", "c:PENDING->RUNNING", "d:PENDING->RUNNING"),
                    moves(r));
            assertEquals(NodeStatus.PENDING, state(r, "e"));
        }

        @ParameterizedTest(name = "completion order {0}")
        @ValueSource(strings = {"bcd", "bdc", "cbd", "cdb", "dbc", "dcb"})
        void joinStartsOnlyAfterTheLastBranchSucceedsInAnyOrder(String order) {
            Runs.Driver run = new Runs.Driver(Runs.fresh(FAN));
            run.tick();
            run.tick(completed(1, "a", 1));

            long id = 10;
            for (int i = 0; i < order.length(); i++) {
                String node = String.valueOf(order.charAt(i));
                TickResult r = run.tick(completed(id++, node, 1));
                boolean last = i == order.length() - 1;
                assertEquals(NodeStatus.SUCCEEDED, state(r, node));
                assertEquals(last ? NodeStatus.RUNNING : NodeStatus.PENDING, state(r, "e"), "after " + node);
                assertEquals(last ? List.of("e#1") : List.of(), dispatched(r), "after " + node);
            }
            TickResult done = run.tick(completed(99, "e", 1));
            assertEquals(RunStatus.SUCCEEDED, done.status());
            assertEquals(5, done.output().size());
        }

        @Test
        void severalCompletionsInOneTickAreAllAppliedAndStartTheJoin() {
            Runs.Driver run = new Runs.Driver(Runs.fresh(FAN));
            run.tick();
            run.tick(completed(1, "a", 1));

            TickResult r = run.tick(completed(12, "d", 1), completed(10, "b", 1), completed(11, "c", 1));

            assertEquals(List.of("d:RUNNING->SUCCEEDED", "b:RUNNING->SUCCEEDED", "c:RUNNING->SUCCEEDED", "e:PENDING->RUNNING"),
                    moves(r));
            assertEquals(List.of("e#1"), dispatched(r));
            assertEquals(ids(10, 11, 12), r.consumedInputs());
        }

        @Test
        void twoOfThreeBranchesInOneTickDoNotStartTheJoin() {
            Runs.Driver run = new Runs.Driver(Runs.fresh(FAN));
            run.tick();
            run.tick(completed(1, "a", 1));

            TickResult r = run.tick(completed(10, "b", 1), completed(11, "d", 1));

            assertEquals(NodeStatus.PENDING, state(r, "e"));
            assertTrue(dispatched(r).isEmpty());
        }

        @Test
        void independentRootsAllStartInTheFirstTick() {
            TickResult r = Runs.tick(Runs.fresh("""
                    [
                      {"id": "x", "type": "task", "handler": "noop"},
                      {"id": "y", "type": "task", "handler": "sleep", "input": {"ms": 5}},
                      {"id": "z", "type": "task", "handler": "noop", "dependsOn": ["x", "y"]}
                    ]"""));

            assertEquals(List.of("x#1", "y#1"), dispatched(r));
            assertEquals(NodeStatus.PENDING, state(r, "z"));
        }
    }

    @Nested
    class SkippedDependencies {

        @Test
        void aDependencySkippedByAnOperatorLetsDependantsStart() {
            RunSnapshot fresh = Runs.fresh(CHAIN);
            RunSnapshot aSkipped = Runs.withNodes(fresh, RunStatus.RUNNING,
                    Map.of("a", new NodeState(NodeStatus.SKIPPED, 1, null, null, 0, null, null, true)));

            TickResult r = Runs.tick(aSkipped);

            assertEquals(List.of("b:PENDING->RUNNING"), moves(r));
            assertEquals(List.of("b#1"), dispatched(r));
        }

        @Test
        void aBranchNotTakenSkipsItsDependantsToo() {
            RunSnapshot fresh = Runs.fresh(CHAIN);
            RunSnapshot aSkipped = Runs.withNodes(fresh, RunStatus.RUNNING,
                    Map.of("a", new NodeState(NodeStatus.SKIPPED, 0, null, null)));

            TickResult r = Runs.tick(aSkipped);

            assertEquals(List.of("b:PENDING->SKIPPED", "c:PENDING->SKIPPED", "run:RUNNING->SUCCEEDED"), moves(r));
            assertTrue(dispatched(r).isEmpty());
        }

        @Test
        void runOfSucceededAndSkippedNodesSucceedsWithOnlyTheOutputsThatExist() {
            RunSnapshot fresh = Runs.fresh(CHAIN);
            RunSnapshot almost = Runs.withNodes(fresh, RunStatus.RUNNING, Map.of(
                    "a", new NodeState(NodeStatus.SUCCEEDED, 1, json("1"), null),
                    "b", new NodeState(NodeStatus.SKIPPED, 0, null, null),
                    "c", new NodeState(NodeStatus.RUNNING, 2, null, null)));

            TickResult r = Runs.tick(almost, completed(5, "c", 2));

            assertEquals(RunStatus.SUCCEEDED, r.status());
            assertEquals(json("{\"a\": 1, \"c\": {\"from\": \"c\", \"attempt\": 2}}"), r.output());
        }
    }

    @Test
    void tickUsesTheGivenTimeForDispatches() {
        Instant later = NOW.plusSeconds(3600);
        TickResult r = Runs.tick(Runs.fresh(CHAIN), later);
        assertEquals(later, ((DispatchTask) r.effects().get(0)).availableAt());
    }
}
