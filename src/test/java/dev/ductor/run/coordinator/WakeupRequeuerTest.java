package dev.ductor.run.coordinator;

import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A requeue replaces only the wakeups this pod still holds: one whose lease was lost is another pod's now. */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class WakeupRequeuerTest {

    private static final String TENANT = "requeuer";

    @Inject
    Fixtures fixtures;

    @Inject
    WakeupRequeuer requeuer;

    @Inject
    QueueRepository queue;

    @Inject
    Clock clock;

    private long liveWakeups(UUID runId) {
        return fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'WAKEUP'", runId);
    }

    @Test
    void aWakeupWhoseLeaseWasLostIsNotRequeuedASecondTime() {
        UUID runId = fixtures.start(TENANT, fixtures.chain(TENANT, 2, "ext:requeue"));
        QueueItem mine = fixtures.claimedWakeup(TENANT, runId, 0, null);
        // This pod stalled past the lease: another pod claimed the same row again, under a fresh token.
        List<QueueItem> reclaimed = QuarkusTransaction.requiringNew().call(() -> queue.claim(List.of(QueueKind.WAKEUP),
                "other-pod", 100, Duration.ofSeconds(30), mine.leaseExpiresAt().plusSeconds(1)));
        assertEquals(1, reclaimed.stream().filter(item -> item.id() == mine.id()).count(), "the other pod holds it now");

        requeuer.requeue(List.of(mine), 1, fixtures.seq(runId));

        assertEquals(1, liveWakeups(runId), "one live copy: the other pod's; a requeued copy would tick the run twice as often");
    }

    @Test
    void aWakeupStillHeldIsReplacedByItsRequeuedCopy() {
        UUID runId = fixtures.start(TENANT, fixtures.chain(TENANT, 2, "ext:requeue"));
        QueueItem mine = fixtures.claimedWakeup(TENANT, runId, 0, null);

        requeuer.requeue(List.of(mine), 1, fixtures.seq(runId));

        assertEquals(1, liveWakeups(runId));
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE id = ?1", mine.id()), "the held one was acked");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE task_key = ?1", WakeupRequeuer.key(mine, 1)));
    }
}
