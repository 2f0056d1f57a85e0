package dev.ductor.watchdog;

import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pass of the watchdog is bounded (20 batches of {@code ductor.watchdog.batch-size}); here a batch is 2 runs, so a
 * pass examines at most 40. Runs parked on a signal with no timeout are legitimately idle forever: more of them than
 * one pass examines must not hide a stuck run behind them.
 */
@QuarkusTest
@TestProfile(WatchdogReachTest.SmallBatches.class)
@Tag("db")
class WatchdogReachTest {

    public static class SmallBatches implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(new ManualCoordination().getConfigOverrides());
            config.put("ductor.watchdog.batch-size", "2");
            return config;
        }
    }

    private static final String TENANT = "watchdog-reach";
    private static final int ONE_PASS = 20 * 2;
    /** Older than anything other tests leave behind, so these runs come first in the watchdog's order. */
    private static final Instant LONG_AGO = Instant.parse("2001-01-01T00:00:00Z");

    @Inject
    Fixtures fixtures;

    @Inject
    StuckRunWatchdog watchdog;

    @Inject
    EntityManager em;

    @Inject
    Clock clock;

    /** Backdates a run as if created and last committed at {@code at}: the watchdog pages by creation, filters by update. */
    private void lastUpdated(UUID runId, Instant at) {
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("UPDATE eec_workflow_run SET created_at = ?2, updated_at = ?2 WHERE run_id = ?1")
                .setParameter(1, runId).setParameter(2, at).executeUpdate());
    }

    @Test
    void runsParkedOnASignalDoNotHideAStuckRunBehindThem() {
        String approval = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"approve\",\"type\":\"signal\",\"signal\":\"approved\"}]}");
        for (int i = 0; i <= ONE_PASS; i++) {
            lastUpdated(fixtures.start(TENANT, approval), LONG_AGO.plusSeconds(i));
        }
        UUID stuck = fixtures.start(TENANT, fixtures.chain(TENANT, 2, "ext:nobody"));
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("DELETE FROM eec_queue_item WHERE run_id = ?1")
                .setParameter(1, stuck).executeUpdate());
        lastUpdated(stuck, LONG_AGO.plus(Duration.ofHours(1)));

        List<UUID> failed = watchdog.runOnce(clock.instant());

        assertTrue(failed.contains(stuck), "the stuck run behind " + (ONE_PASS + 1) + " parked ones was reached");
        assertEquals("FAILED", fixtures.status(stuck));
        assertEquals(ONE_PASS + 1, fixtures.count("SELECT count(*) FROM eec_workflow_run r JOIN eec_workflow_definition d"
                + " ON d.tenant = r.tenant AND d.name = r.workflow_name WHERE d.name = ?1 AND r.status = 'RUNNING'", approval),
                "every parked run is still waiting for its signal");
    }
}
