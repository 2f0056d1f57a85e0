package dev.ductor.worker;

import dev.ductor.error.ConflictException;
import dev.ductor.queue.QueueItem;
import dev.ductor.run.coordinator.Attempts;
import dev.ductor.run.coordinator.TickRetries;
import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A step whose worker died (its pod killed, or cut off from a database that failed over) is not the handler's
 * failure: on the default single attempt, the reaped lease is followed by a new attempt, and the run succeeds.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class LeaseExpiryRetryTest {

    private static final String TENANT = "lease-expiry";

    @Inject Fixtures fixtures;
    @Inject TaskResults results;
    @Inject TickRetries retries;
    @Inject LeaseReaper reaper;
    @Inject Clock clock;

    @Test
    void aReapedLeaseOnASingleAttemptNodeIsDispatchedAgainAndTheRunSucceeds() {
        String handler = "ext:lost-" + UUID.randomUUID();
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"" + handler + "\"}]}");
        UUID runId = fixtures.start(TENANT, workflow);
        QueueItem lost = fixtures.claimTasks(runId, Set.of(handler)).get(0);
        assertEquals(1, lost.attempt());

        // Nobody heartbeats: the lease runs out and the reaper takes the row.
        assertTrue(reaper.runOnce(clock.instant().plus(Duration.ofMinutes(1))) >= 1);
        retries.tick(runId, List.of(), List.of(), new Attempts());

        assertEquals("RUNNING", fixtures.nodeState(runId, "a"), "the lost lease did not spend the node's one attempt");
        List<QueueItem> again = fixtures.claimTasks(runId, Set.of(handler));
        assertEquals(1, again.size());
        assertEquals(2, again.get(0).attempt(), "a new attempt number, so the lost one stays fenced off");
        assertThrows(ConflictException.class, () -> results.complete(lost.id(), lost.leaseToken(), fixtures.json("{}")),
                "the dead worker's late report is refused");

        results.complete(again.get(0).id(), again.get(0).leaseToken(), fixtures.json("{\"ok\": true}"));
        retries.tick(runId, List.of(), List.of(), new Attempts());

        assertEquals("SUCCEEDED", fixtures.status(runId));
    }
}
