package dev.ductor.run.core;

import dev.ductor.run.core.Effect.DispatchTask;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.ductor.run.core.Runs.NOW;
import static dev.ductor.run.core.Runs.RUN_INPUT;
import static dev.ductor.run.core.Runs.completed;
import static dev.ductor.run.core.Runs.dispatched;
import static dev.ductor.run.core.Runs.failed;
import static dev.ductor.run.core.Runs.ids;
import static dev.ductor.run.core.Runs.moves;
import static dev.ductor.run.core.Runs.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lease that ran out (its pod died, or lost its database) is not the handler's failure: the node is dispatched
 * again under a new attempt number, without spending its {@code maxAttempts}, up to the budget the input carries.
 */
@Tag("unit")
class TickLeaseExpiryTest {

    static final String SINGLE_ATTEMPT = """
            [
              {"id": "a", "type": "task", "handler": "noop", "pool": "p"},
              {"id": "b", "type": "task", "handler": "noop", "dependsOn": ["a"]}
            ]""";

    static final String TWO_ATTEMPTS = """
            [
              {"id": "a", "type": "task", "handler": "fail", "pool": "p", "retry": {"maxAttempts": 2, "backoff": "PT1S"}}
            ]""";

    static Input.LeaseExpired expired(long id, String node, int attempt, int budget) {
        return new Input.LeaseExpired(id, node, attempt, "lease expired: the worker stopped heartbeating", budget);
    }

    @Test
    void aReapedAttemptIsDispatchedAgainWithoutSpendingItsSingleAttempt() {
        Runs.Driver run = Runs.Driver.start(SINGLE_ATTEMPT);
        run.tick();

        TickResult r = run.tick(expired(7, "a", 1, 5));

        assertEquals(List.of("a:RUNNING->RUNNING"), moves(r));
        assertEquals(List.of(new DispatchTask("a", 2, "noop", "p", RUN_INPUT, NOW)), r.effects());
        assertEquals(2, r.nodes().get("a").attempts(), "a new attempt number: fencing and dedup keys stay unique");
        assertEquals(1, r.nodes().get("a").leaseRetries());
        assertEquals(RunStatus.RUNNING, r.status());
        assertEquals(ids(7), r.consumedInputs());
        assertTrue(r.transitions().get(0).cause().contains("lease"), r.transitions().get(0).cause());

        TickResult done = run.tick(completed(8, "a", 2));
        assertEquals(NodeStatus.SUCCEEDED, state(done, "a"));
        assertEquals(List.of("b#1"), dispatched(done));
    }

    @Test
    void theBudgetSpentFailsTheNodeSayingHowOftenItsLeaseExpired() {
        Runs.Driver run = Runs.Driver.start(SINGLE_ATTEMPT);
        run.tick();
        assertEquals(List.of("a#2"), dispatched(run.tick(expired(1, "a", 1, 2))));
        assertEquals(List.of("a#3"), dispatched(run.tick(expired(2, "a", 2, 2))));

        TickResult r = run.tick(expired(3, "a", 3, 2));

        assertEquals(NodeStatus.FAILED, state(r, "a"));
        assertEquals(RunStatus.FAILED, r.status());
        assertEquals(List.of(), dispatched(r));
        String error = r.nodes().get("a").error();
        assertTrue(error.startsWith("lease expired 3 times: "), error);
    }

    @Test
    void aHandlerFailureAfterAReapedAttemptStillHasTheNodesOwnAttempts() {
        Runs.Driver run = Runs.Driver.start(TWO_ATTEMPTS);
        run.tick();
        run.tick(expired(1, "a", 1, 5));

        TickResult second = run.tick(NOW, failed(2, "a", 2, true));

        // Attempt 2 was the handler's first: its second follows, after the backoff before a second attempt.
        assertEquals(List.of(new DispatchTask("a", 3, "fail", "p", RUN_INPUT, NOW.plus(Duration.ofSeconds(1)))),
                second.effects());
        TickResult third = run.tick(failed(3, "a", 3, true));
        assertEquals(NodeStatus.FAILED, state(third, "a"));
        assertTrue(third.transitions().get(0).cause().contains("no attempts left"), third.transitions().get(0).cause());
    }

    @Test
    void pastTheBudgetTheNodeFailsWhateverAttemptsItsPolicyHasLeft() {
        // A step that keeps losing its lease (a worker that never heartbeats) is not helped by more of the same.
        Runs.Driver run = Runs.Driver.start(TWO_ATTEMPTS);
        run.tick();

        TickResult r = run.tick(expired(1, "a", 1, 0));

        assertEquals(NodeStatus.FAILED, state(r, "a"));
        assertTrue(r.nodes().get("a").error().startsWith("lease expired once: "), r.nodes().get("a").error());
    }

    @Test
    void anExpiryOfAnAttemptThatIsNoLongerCurrentChangesNothing() {
        Runs.Driver run = Runs.Driver.start(SINGLE_ATTEMPT);
        run.tick();
        run.tick(expired(1, "a", 1, 5));

        TickResult r = run.tick(expired(2, "a", 1, 5));

        assertEquals(List.of(), moves(r));
        assertEquals(ids(2), r.consumedInputs());
        assertEquals(1, r.nodes().get("a").leaseRetries());
    }
}
