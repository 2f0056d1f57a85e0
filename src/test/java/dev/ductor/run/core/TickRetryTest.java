package dev.ductor.run.core;

import dev.ductor.run.core.Effect.DispatchTask;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static dev.ductor.run.core.Runs.NOW;
import static dev.ductor.run.core.Runs.RUN_INPUT;
import static dev.ductor.run.core.Runs.completed;
import static dev.ductor.run.core.Runs.dispatched;
import static dev.ductor.run.core.Runs.failed;
import static dev.ductor.run.core.Runs.ids;
import static dev.ductor.run.core.Runs.json;
import static dev.ductor.run.core.Runs.moves;
import static dev.ductor.run.core.Runs.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A failed attempt is retried with exponential backoff while attempts remain, and fails the run after. */
@Tag("unit")
class TickRetryTest {

    static final String RETRYING = """
            [
              {"id": "a", "type": "task", "handler": "fail", "pool": "p", "retry": {"maxAttempts": 3, "backoff": "PT1S"}},
              {"id": "b", "type": "task", "handler": "noop", "dependsOn": ["a"]}
            ]""";

    static final String NO_RETRY = """
            [
              {"id": "a", "type": "task", "handler": "fail"},
              {"id": "b", "type": "task", "handler": "noop", "dependsOn": ["a"]}
            ]""";

    @Test
    void retryableFailureWithAttemptsLeftDispatchesTheNextAttemptAfterTheBackoff() {
        Runs.Driver run = Runs.Driver.start(RETRYING);
        run.tick();
        Instant t1 = NOW.plusSeconds(10);

        TickResult r = run.tick(t1, failed(5, "a", 1, true));

        assertEquals(List.of("a:RUNNING->RUNNING"), moves(r));
        assertEquals(new NodeState(NodeStatus.RUNNING, 2, null, "boom 1"), r.nodes().get("a"));
        assertEquals(List.of(new DispatchTask("a", 2, "fail", "p", RUN_INPUT, t1.plus(Duration.ofSeconds(1)))), r.effects());
        assertEquals(ids(5), r.consumedInputs());
        assertEquals(RunStatus.RUNNING, r.status());
        assertTrue(r.transitions().get(0).cause().contains("attempt 2"), r.transitions().get(0).cause());
    }

    @Test
    void backoffDoublesWithEachAttempt() {
        Runs.Driver run = Runs.Driver.start(RETRYING);
        run.tick();
        run.tick(NOW, failed(5, "a", 1, true));
        Instant t2 = NOW.plusSeconds(100);

        TickResult r = run.tick(t2, failed(6, "a", 2, true));

        assertEquals(List.of("a:RUNNING->RUNNING"), moves(r));
        assertEquals(3, r.nodes().get("a").attempts());
        DispatchTask dispatch = (DispatchTask) r.effects().get(0);
        assertEquals(3, dispatch.attempt());
        assertEquals(t2.plus(Duration.ofSeconds(2)), dispatch.availableAt());
    }

    @Test
    void retryWithoutBackoffIsAvailableImmediately() {
        Runs.Driver run = Runs.Driver.start("""
                [{"id": "a", "type": "task", "handler": "fail", "retry": {"maxAttempts": 2}}]""");
        run.tick();

        TickResult r = run.tick(failed(5, "a", 1, true));

        assertEquals(NOW, ((DispatchTask) r.effects().get(0)).availableAt());
    }

    @Test
    void lastAttemptFailingFailsTheNodeSkipsItsDependantsAndFailsTheRun() {
        Runs.Driver run = Runs.Driver.start(RETRYING);
        run.tick();
        run.tick(failed(5, "a", 1, true));
        run.tick(failed(6, "a", 2, true));

        TickResult r = run.tick(failed(7, "a", 3, true));

        assertEquals(List.of("a:RUNNING->FAILED", "b:PENDING->SKIPPED", "run:RUNNING->FAILED"), moves(r));
        assertEquals(new NodeState(NodeStatus.FAILED, 3, null, "boom 3"), r.nodes().get("a"));
        assertTrue(r.transitions().get(1).cause().contains("runIf allSucceeded does not hold ('a' failed)"),
                r.transitions().get(1).cause());
        assertEquals(RunStatus.FAILED, r.status());
        assertTrue(r.effects().isEmpty());
        assertNull(r.output());
        assertTrue(r.transitions().get(0).cause().contains("no attempts left"), r.transitions().get(0).cause());
        assertTrue(r.transitions().get(2).cause().contains("'a'"), r.transitions().get(2).cause());
    }

    @Test
    void nonRetryableFailureFailsAtOnceDespiteAttemptsLeft() {
        Runs.Driver run = Runs.Driver.start(RETRYING);
        run.tick();

        TickResult r = run.tick(failed(5, "a", 1, false));

        assertEquals(List.of("a:RUNNING->FAILED", "b:PENDING->SKIPPED", "run:RUNNING->FAILED"), moves(r));
        assertTrue(r.transitions().get(0).cause().contains("not retryable"), r.transitions().get(0).cause());
        assertTrue(r.effects().isEmpty());
    }

    @Test
    void taskWithoutRetryPolicyFailsOnTheFirstRetryableFailure() {
        Runs.Driver run = Runs.Driver.start(NO_RETRY);
        run.tick();

        TickResult r = run.tick(failed(5, "a", 1, true));

        assertEquals(RunStatus.FAILED, r.status());
        assertEquals(NodeStatus.FAILED, state(r, "a"));
        assertEquals(NodeStatus.SKIPPED, state(r, "b"));
    }

    @Test
    void failureInOneBranchLetsTheRunningSiblingFinishThenSkipsTheJoinAndFailsTheRun() {
        Runs.Driver run = Runs.Driver.start(TickDispatchTest.FAN);
        run.tick();
        run.tick(completed(1, "a", 1));
        run.tick(completed(2, "c", 1));

        TickResult r = run.tick(failed(3, "b", 1, false));

        assertEquals(List.of("b:RUNNING->FAILED"), moves(r), "the run ends when no node can run any more, not at once");
        assertEquals(RunStatus.RUNNING, r.status());
        TickResult end = run.tick(completed(4, "d", 1));
        assertEquals(List.of("d:RUNNING->SUCCEEDED", "e:PENDING->SKIPPED", "run:RUNNING->FAILED"), moves(end));
        assertEquals(NodeStatus.SUCCEEDED, state(end, "a"));
        assertEquals(NodeStatus.SUCCEEDED, state(end, "c"));
    }

    @Test
    void successOnARetryClearsTheErrorAndContinues() {
        Runs.Driver run = Runs.Driver.start(RETRYING);
        run.tick();
        run.tick(failed(5, "a", 1, true));

        TickResult r = run.tick(new Input.TaskCompleted(6, "a", 2, json("{\"ok\": true}")));

        assertEquals(List.of("a:RUNNING->SUCCEEDED", "b:PENDING->RUNNING"), moves(r));
        assertEquals(new NodeState(NodeStatus.SUCCEEDED, 2, json("{\"ok\": true}"), null), r.nodes().get("a"));
        assertEquals(List.of("b#1"), dispatched(r));
    }

    @Test
    void resultOfTheSupersededAttemptIsIgnoredAfterARetry() {
        Runs.Driver run = Runs.Driver.start(RETRYING);
        run.tick();
        run.tick(failed(5, "a", 1, true));

        TickResult late = run.tick(completed(6, "a", 1), failed(7, "a", 1, false));

        assertTrue(late.transitions().isEmpty());
        assertEquals(ids(6, 7), late.consumedInputs());
        assertEquals(new NodeState(NodeStatus.RUNNING, 2, null, "boom 1"), late.nodes().get("a"));
    }

    @Test
    void failedNodeInTheLoadedSnapshotFailsTheRun() {
        RunSnapshot fresh = Runs.fresh(TickDispatchTest.CHAIN);
        RunSnapshot loaded = Runs.withNodes(fresh, RunStatus.RUNNING, java.util.Map.of(
                "a", new NodeState(NodeStatus.FAILED, 1, null, "boom")));

        TickResult r = Runs.tick(loaded);

        assertEquals(List.of("b:PENDING->SKIPPED", "c:PENDING->SKIPPED", "run:RUNNING->FAILED"), moves(r));
        assertTrue(r.effects().isEmpty());
    }
}
