package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.run.core.Effect.DispatchTask;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.ductor.run.core.Runs.NOW;
import static dev.ductor.run.core.Runs.assertContiguousSeq;
import static dev.ductor.run.core.Runs.dispatched;
import static dev.ductor.run.core.Runs.fresh;
import static dev.ductor.run.core.Runs.json;
import static dev.ductor.run.core.Runs.moves;
import static dev.ductor.run.core.Runs.next;
import static dev.ductor.run.core.Runs.state;
import static dev.ductor.run.core.Runs.tick;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The workflow language in the pure tick: data between nodes, branches, failure paths, fan-out, child runs. */
@Tag("unit")
class TickWorkflowLanguageTest {

    private static Input.TaskCompleted done(long id, String node, int attempt, String output) {
        return new Input.TaskCompleted(id, node, attempt, json(output));
    }

    private static Input.TaskFailed failed(long id, String node, int attempt, boolean retryable) {
        return new Input.TaskFailed(id, node, attempt, "declined", retryable);
    }

    private static DispatchTask task(TickResult result, String node) {
        return result.effects().stream().filter(e -> e instanceof DispatchTask d && d.node().equals(node))
                .map(DispatchTask.class::cast).findFirst().orElseThrow(() -> new AssertionError("no task for " + node
                        + " in " + result.effects()));
    }

    /** JSON equal by value: a number an expression computed is a long, one read back from the database an int. */
    private static void assertJson(String expected, JsonNode actual) {
        assertEquals(json(expected), actual == null ? null : json(actual.toString()));
    }

    private static void assertJson(String expected, JsonNode actual, String message) {
        assertEquals(json(expected), actual == null ? null : json(actual.toString()), message);
    }

    /** Ticks each input in its own commit, as results arriving one by one would. */
    private static RunSnapshot apply(RunSnapshot run, Input... inputs) {
        RunSnapshot current = run;
        for (Input input : inputs) {
            TickResult result = tick(current, input);
            assertContiguousSeq(current, result);
            current = next(current, result);
        }
        return current;
    }

    @Nested
    class DataBetweenNodes {

        @Test
        void aTaskGetsItsInputTemplateEvaluatedOnWhatItsDependenciesGave() {
            RunSnapshot run = fresh("""
                    [{"id": "charge", "type": "task", "handler": "ext:charge", "input": {"order": "${{ input.order }}"}},
                     {"id": "receipt", "type": "task", "handler": "echo", "dependsOn": ["charge"],
                      "input": {"charge": "${{ nodes.charge.output.chargeId }}", "text": "order ${{ input.order }} paid",
                                "run": "${{ run.workflow }}"}}]""");
            TickResult first = tick(run);
            assertJson("{\"order\": 42}", task(first, "charge").input());
            RunSnapshot started = next(run, first);
            assertJson("{\"order\": 42}", started.nodes().get("charge").input(), "the evaluated input is kept");

            TickResult second = tick(started, done(1, "charge", 1, "{\"chargeId\": \"ch_1\"}"));
            assertJson("{\"charge\": \"ch_1\", \"text\": \"order 42 paid\", \"run\": \"wf\"}", task(second, "receipt").input());
        }

        @Test
        void aSignalNodesOutputIsItsPayloadAndATimersItsFireTime() {
            RunSnapshot run = fresh("""
                    [{"id": "paid", "type": "signal", "signal": "paid"},
                     {"id": "cool", "type": "timer", "duration": "PT1S", "dependsOn": ["paid"]},
                     {"id": "ship", "type": "task", "handler": "echo", "dependsOn": ["cool"],
                      "input": {"amount": "${{ nodes.paid.output.amount }}", "at": "${{ nodes.cool.output }}"}}]""");
            RunSnapshot waiting = apply(run, new Input.SignalReceived(1, "paid", json("{\"amount\": 990}")));
            TickResult fired = tick(waiting, NOW.plusSeconds(1), new Input.TimerFired(2, "cool"));
            assertJson("{\"amount\": 990, \"at\": \"" + NOW.plusSeconds(1) + "\"}", task(fired, "ship").input());
        }

        @Test
        void theWorkflowsOutputTemplateIsTheRunsOutput() {
            RunSnapshot run = Runs.freshWith("""
                    {"name": "wf", "output": {"receipt": "${{ nodes.a.output.id }}"},
                     "nodes": [{"id": "a", "type": "task", "handler": "noop"}]}""");
            TickResult result = tick(next(run, tick(run)), done(1, "a", 1, "{\"id\": 7}"));
            assertEquals(RunStatus.SUCCEEDED, result.status());
            assertJson("{\"receipt\": 7}", result.output());
        }

        @Test
        void anExpressionThatFailsAtRunTimeFailsItsNodeNotTheTickAndNamesTheExpression() {
            RunSnapshot run = fresh("""
                    [{"id": "charge", "type": "task", "handler": "noop"},
                     {"id": "receipt", "type": "task", "handler": "echo", "dependsOn": ["charge"],
                      "input": {"charge": "${{ nodes.charge.output.chargeId }}"}}]""");
            TickResult result = tick(next(run, tick(run)), done(1, "charge", 1, "{\"status\": \"declined\"}"));
            assertEquals(NodeStatus.FAILED, state(result, "receipt"));
            String error = result.nodes().get("receipt").error();
            assertTrue(error.contains("nodes.charge.output.chargeId"), error);
            assertEquals(RunStatus.FAILED, result.status());
            assertTrue(dispatched(result).isEmpty(), "nothing was dispatched for the failed node");
            // The same snapshot gives the same failure: a lost race recomputes it and never loops.
            TickResult again = tick(next(run, tick(run)), done(1, "charge", 1, "{\"status\": \"declined\"}"));
            assertEquals(result.nodes(), again.nodes());
        }
    }

    @Nested
    class Branches {

        private static final String IF_ELSE = """
                [{"id": "charge", "type": "task", "handler": "noop"},
                 {"id": "big", "type": "task", "handler": "noop", "dependsOn": ["charge"],
                  "when": "nodes.charge.output.cents > 1000"},
                 {"id": "small", "type": "task", "handler": "noop", "dependsOn": ["charge"],
                  "when": "nodes.charge.output.cents <= 1000"},
                 {"id": "after-big", "type": "task", "handler": "noop", "dependsOn": ["big"]},
                 {"id": "join", "type": "task", "handler": "noop", "dependsOn": ["after-big", "small"], "runIf": "noneFailed"}]""";

        @Test
        void aFalseWhenSkipsTheNodeAndItsDependantsAndNoneFailedJoinsTheBranchTaken() {
            RunSnapshot run = fresh(IF_ELSE);
            RunSnapshot charged = next(run, tick(run));
            TickResult result = tick(charged, done(1, "charge", 1, "{\"cents\": 500}"));
            assertEquals(NodeStatus.SKIPPED, state(result, "big"));
            assertEquals(NodeStatus.SKIPPED, state(result, "after-big"), "a dependant of a skipped branch is skipped");
            assertEquals(NodeStatus.RUNNING, state(result, "small"));
            assertEquals(NodeStatus.PENDING, state(result, "join"), "waits for the branch that was taken");
            assertTrue(result.transitions().stream().anyMatch(t -> "big".equals(t.node())
                    && t.cause().contains("when 'nodes.charge.output.cents > 1000' is false")), "the history says why");

            TickResult joined = tick(next(charged, result), done(2, "small", 1, "{}"));
            assertEquals(NodeStatus.RUNNING, state(joined, "join"));
            TickResult end = tick(next(next(charged, result), joined), done(3, "join", 1, "{}"));
            assertEquals(RunStatus.SUCCEEDED, end.status());
        }

        @Test
        void noneFailedIsSkippedWhenEveryDependencyWasSkipped() {
            RunSnapshot run = fresh("""
                    [{"id": "a", "type": "task", "handler": "noop", "when": "input.order == 0"},
                     {"id": "j", "type": "task", "handler": "noop", "dependsOn": ["a"], "runIf": "noneFailed"}]""");
            TickResult result = tick(run);
            assertEquals(NodeStatus.SKIPPED, state(result, "a"));
            assertEquals(NodeStatus.SKIPPED, state(result, "j"));
            assertEquals(RunStatus.SUCCEEDED, result.status(), "a run whose nodes were all skipped succeeded");
        }

        @Test
        void anOperatorsSkipLetsTheDependantsGoAhead() {
            RunSnapshot run = fresh("""
                    [{"id": "a", "type": "task", "handler": "noop"},
                     {"id": "b", "type": "task", "handler": "noop", "dependsOn": ["a"]}]""");
            TickResult result = tick(next(run, tick(run)), new Input.OperatorAction(1, "a", OperatorActions.Action.SKIP));
            assertEquals(NodeStatus.SKIPPED, state(result, "a"));
            assertTrue(result.nodes().get("a").byOperator());
            assertEquals(NodeStatus.RUNNING, state(result, "b"));
        }
    }

    @Nested
    class FailurePaths {

        private static final String ORDER = """
                [{"id": "charge", "type": "task", "handler": "noop", "allowFailure": true},
                 {"id": "ship", "type": "task", "handler": "noop", "dependsOn": ["charge"]},
                 {"id": "refund", "type": "task", "handler": "noop", "dependsOn": ["charge"], "runIf": "anyFailed"},
                 {"id": "cleanup", "type": "task", "handler": "noop", "dependsOn": ["ship", "refund"], "runIf": "allDone"}]""";

        @Test
        void aFailureAllowedRunsTheCompensationAndTheCleanUpAndTheRunSucceeds() {
            RunSnapshot run = fresh(ORDER);
            RunSnapshot started = next(run, tick(run));
            TickResult failed = tick(started, failed(1, "charge", 1, false));
            assertEquals(NodeStatus.FAILED, state(failed, "charge"));
            assertEquals(NodeStatus.SKIPPED, state(failed, "ship"));
            assertEquals(NodeStatus.RUNNING, state(failed, "refund"));
            assertEquals(NodeStatus.PENDING, state(failed, "cleanup"));
            assertEquals(RunStatus.RUNNING, failed.status(), "the run does not end at its first failure");

            RunSnapshot refunding = next(started, failed);
            TickResult refunded = tick(refunding, done(2, "refund", 1, "{}"));
            assertEquals(NodeStatus.RUNNING, state(refunded, "cleanup"));
            TickResult end = tick(next(refunding, refunded), done(3, "cleanup", 1, "{}"));
            assertEquals(RunStatus.SUCCEEDED, end.status());
        }

        @Test
        void aFailureNotAllowedStillRunsTheCompensationFirstThenTheRunFails() {
            RunSnapshot run = fresh(ORDER.replace("\"allowFailure\": true", "\"allowFailure\": false"));
            RunSnapshot started = next(run, tick(run));
            TickResult failed = tick(started, failed(1, "charge", 1, false));
            assertEquals(RunStatus.RUNNING, failed.status());
            RunSnapshot s = next(started, failed);
            TickResult refunded = tick(s, done(2, "refund", 1, "{}"));
            TickResult end = tick(next(s, refunded), done(3, "cleanup", 1, "{}"));
            assertEquals(RunStatus.FAILED, end.status());
            assertTrue(end.transitions().get(end.transitions().size() - 1).cause().contains("node 'charge' failed"));
        }

        @Test
        void theCompensationIsSkippedWhenNothingFailed() {
            RunSnapshot run = fresh(ORDER);
            RunSnapshot started = next(run, tick(run));
            TickResult charged = tick(started, done(1, "charge", 1, "{}"));
            assertEquals(NodeStatus.SKIPPED, state(charged, "refund"));
            assertEquals(NodeStatus.RUNNING, state(charged, "ship"));
        }
    }

    @Nested
    class FanOut {

        private static final String LINES = """
                [{"id": "pick", "type": "task", "handler": "ext:pick", "forEach": "input.lines", "maxConcurrency": 2,
                  "retry": {"maxAttempts": 2},
                  "input": {"sku": "${{ item.sku }}", "n": "${{ index }}"}},
                 {"id": "after", "type": "task", "handler": "echo", "dependsOn": ["pick"],
                  "input": {"picked": "${{ size(nodes.pick.output) }}"}}]""";

        private RunSnapshot lines(int count) {
            StringBuilder items = new StringBuilder("[");
            for (int i = 0; i < count; i++) {
                items.append(i == 0 ? "" : ",").append("{\"sku\": \"s").append(i).append("\"}");
            }
            RunSnapshot run = fresh(LINES);
            return new RunSnapshot(run.runId(), run.definition(), run.status(), run.nodes(), run.lastSeq(), 0,
                    json("{\"lines\": " + items + "]}"));
        }

        @Test
        void itemsRunAtMostMaxConcurrencyAtATimeInOrderAndTheOutputIsTheirOutputsInOrder() {
            RunSnapshot run = lines(3);
            TickResult first = tick(run);
            assertEquals(List.of("pick[0]#1", "pick[1]#1"), dispatched(first));
            assertJson("{\"sku\": \"s1\", \"n\": 1}", task(first, "pick[1]").input());
            RunSnapshot s = next(run, first);
            TickResult second = tick(s, done(1, "pick[1]", 1, "\"one\""));
            assertEquals(List.of("pick[2]#1"), dispatched(second));
            s = next(s, second);
            s = apply(s, done(2, "pick[2]", 1, "\"two\""));
            TickResult last = tick(s, done(3, "pick[0]", 1, "\"zero\""));
            assertEquals(NodeStatus.SUCCEEDED, state(last, "pick"));
            assertJson("[\"zero\", \"one\", \"two\"]", last.nodes().get("pick").output());
            assertJson("{\"picked\": 3}", task(last, "after").input());
        }

        @Test
        void anItemThatFailsIsRetriedOnItsOwnAttemptsThenSucceeds() {
            RunSnapshot run = lines(2);
            RunSnapshot s = next(run, tick(run));
            TickResult failedOnce = tick(s, failed(1, "pick[0]", 1, true));
            assertEquals(List.of("pick[0]#2"), dispatched(failedOnce));
            assertEquals(NodeStatus.RUNNING, state(failedOnce, "pick"));
            s = next(s, failedOnce);
            TickResult stale = tick(s, done(2, "pick[0]", 1, "\"late\""));
            assertTrue(stale.transitions().isEmpty(), "the first attempt's late result is fenced off");
            s = apply(s, done(3, "pick[0]", 2, "\"a\""), done(4, "pick[1]", 1, "\"b\""));
            assertEquals(NodeStatus.SUCCEEDED, s.nodes().get("pick").state());
            assertEquals(2, s.nodes().get("pick").items().get(0).attempts());
        }

        @Test
        void anItemFailingPastItsRetriesFailsTheNodeAndStopsTheOthers() {
            RunSnapshot run = lines(3);
            RunSnapshot s = apply(next(run, tick(run)), failed(1, "pick[0]", 1, true));
            TickResult result = tick(s, failed(2, "pick[0]", 2, true));
            assertEquals(NodeStatus.FAILED, state(result, "pick"));
            assertTrue(result.nodes().get("pick").error().startsWith("item 0 failed"), result.nodes().get("pick").error());
            assertTrue(result.effects().stream().anyMatch(e -> e instanceof Effect.SupersedeTasks t && t.node().equals("pick[1]")));
            assertEquals(RunStatus.FAILED, result.status());
        }

        @Test
        void aFanOutOverTheLimitFailsTheNodeWithAClearError() {
            RunSnapshot run = lines(11);
            TickResult result = Tick.tick(run, List.of(), NOW, new TickLimits(10));
            assertEquals(NodeStatus.FAILED, state(result, "pick"));
            assertTrue(result.nodes().get("pick").error().contains("ductor.workflow.max-fan-out"));
        }

        @Test
        void aFanOutOverNoItemsSucceedsWithAnEmptyList() {
            RunSnapshot run = lines(0);
            TickResult result = tick(run);
            assertEquals(NodeStatus.SUCCEEDED, state(result, "pick"));
            assertJson("{\"picked\": 0}", task(result, "after").input());
        }

        @Test
        void aLostRaceInTheMiddleOfAFanOutAppliesEachItemOnce() {
            RunSnapshot run = lines(4);
            RunSnapshot s = next(run, tick(run));
            // Two pods tick the same snapshot with different results; one wins, the other re-reads and recomputes.
            TickResult winner = tick(s, done(1, "pick[0]", 1, "\"a\""));
            TickResult loser = tick(s, done(2, "pick[1]", 1, "\"b\""));
            assertEquals(moves(loser).size(), moves(tick(s, done(2, "pick[1]", 1, "\"b\""))).size(), "pure: recomputable");
            RunSnapshot afterWinner = next(s, winner);
            TickResult recomputed = tick(afterWinner, done(2, "pick[1]", 1, "\"b\""));
            RunSnapshot end = next(afterWinner, recomputed);
            assertEquals(NodeStatus.SUCCEEDED, end.nodes().get("pick").items().get(0).state());
            assertEquals(NodeStatus.SUCCEEDED, end.nodes().get("pick").items().get(1).state());
            assertEquals(List.of("pick[2]#1", "pick[3]#1").stream().sorted().toList(),
                    List.of(dispatched(winner).get(0), dispatched(recomputed).get(0)).stream().sorted().toList(),
                    "each freed slot dispatched one new item, none twice");
            // A result applied again (a repeat delivered after the winner) changes nothing.
            TickResult repeat = tick(end, done(3, "pick[0]", 1, "\"a\""));
            assertTrue(repeat.transitions().isEmpty());
        }
    }

    @Nested
    class ChildWorkflows {

        private static final String PARENT = """
                [{"id": "ship", "type": "workflow", "workflow": "shipping", "retry": {"maxAttempts": 3},
                  "input": {"order": "${{ input.order }}"}},
                 {"id": "after", "type": "task", "handler": "echo", "dependsOn": ["ship"],
                  "input": {"tracking": "${{ nodes.ship.output.tracking }}"}}]""";

        private Effect.StartChild child(TickResult result) {
            return result.effects().stream().filter(Effect.StartChild.class::isInstance).map(Effect.StartChild.class::cast)
                    .findFirst().orElseThrow();
        }

        @Test
        void aChildThatFailsTwiceThenSucceedsIsStartedOncePerAttempt() {
            RunSnapshot run = fresh(PARENT);
            TickResult first = tick(run);
            Effect.StartChild started = child(first);
            assertEquals("shipping", started.workflow());
            assertEquals(1, started.attempt());
            assertJson("{\"order\": 42}", started.input());
            RunSnapshot s = next(run, first);

            TickResult failedOnce = tick(s, failed(1, "ship", 1, true));
            assertEquals(2, child(failedOnce).attempt());
            assertJson("{\"order\": 42}", child(failedOnce).input(), "a retry gets the same input");
            s = next(s, failedOnce);
            TickResult failedTwice = tick(s, failed(2, "ship", 2, true));
            assertEquals(3, child(failedTwice).attempt());
            s = next(s, failedTwice);
            TickResult succeeded = tick(s, done(3, "ship", 3, "{\"tracking\": \"T1\"}"));
            assertEquals(NodeStatus.SUCCEEDED, state(succeeded, "ship"));
            assertJson("{\"tracking\": \"T1\"}", task(succeeded, "after").input());
        }

        @Test
        void cancellingTheParentCancelsItsRunningChild() {
            RunSnapshot run = fresh(PARENT);
            TickResult cancelled = tick(next(run, tick(run)), new Input.CancelRequested(1, "stop"));
            assertEquals(RunStatus.CANCELLED, cancelled.status());
            assertTrue(cancelled.effects().contains(new Effect.CancelChild("ship", 1)));
        }
    }

    @Test
    void aNodeStatesNewFieldsAreCoveredByTheChecksum() {
        NodeState plain = new NodeState(NodeStatus.RUNNING, 1, null, null);
        NodeState withInput = new NodeState(NodeStatus.RUNNING, 1, null, null, 0, json("{\"a\": 1}"), null, false);
        NodeState withItems = new NodeState(NodeStatus.RUNNING, 1, null, null, 0, null, List.of(NodeState.pending()), false);
        String a = StateChecksum.of(new StateChecksum.Covered("RUNNING", 1, "standard", null, Map.of("n", plain)));
        String b = StateChecksum.of(new StateChecksum.Covered("RUNNING", 1, "standard", null, Map.of("n", withInput)));
        String c = StateChecksum.of(new StateChecksum.Covered("RUNNING", 1, "standard", null, Map.of("n", withItems)));
        assertTrue(!a.equals(b) && !a.equals(c) && !b.equals(c));
    }

    @Test
    void aRunWithoutTheLanguagesFieldsTicksAsBefore() {
        RunSnapshot run = fresh("""
                [{"id": "a", "type": "task", "handler": "noop"},
                 {"id": "b", "type": "task", "handler": "noop", "dependsOn": ["a"]}]""");
        TickResult first = tick(run);
        assertEquals(Runs.RUN_INPUT, task(first, "a").input(), "a task without input gets the run's input");
        assertNull(first.nodes().get("a").input(), "and keeps no copy of it");
        JsonNode unused = first.output();
        assertNull(unused);
        assertEquals(List.of("a:PENDING->RUNNING"), moves(first).stream().collect(Collectors.toList()));
    }
}
