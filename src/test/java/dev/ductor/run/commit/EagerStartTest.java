package dev.ductor.run.commit;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.PodIdentity;
import dev.ductor.support.Fixtures;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A start leases its first steps to its own pod when a step worker slot is free (eager dispatch), so they start
 * without a claim; with every slot busy it queues them for any pod to claim, as before.
 */
@QuarkusTest
@TestProfile(EagerStartTest.SlotsToSpare.class)
@Tag("db")
class EagerStartTest {

    private static final String TENANT = "eager-start";

    @Inject
    Fixtures fixtures;

    @Inject
    RunStarter starter;

    @Inject
    PodIdentity pod;

    @Inject
    DuctorConfig config;

    private String taskRows(UUID runId) {
        return fixtures.rows("SELECT node_id, lease_owner, deliveries, created_at, available_at FROM eec_queue_item"
                + " WHERE run_id = ?1", runId);
    }

    @Test
    void aStartLeasesItsFirstStepToItsOwnPodInTheStartsTransaction() {
        String workflow = fixtures.define(TENANT, """
                {"nodes":[{"id":"nap","type":"task","handler":"sleep","input":{"ms":1000}}]}""");

        UUID runId = fixtures.start(TENANT, workflow);

        // Leased at insert: its lease ends exactly one lease after the row was created. A claim would have leased an
        // unleased row later, so its lease would end later than that.
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND node_id = 'nap'"
                        + " AND lease_owner = ?2 AND deliveries = 1 AND available_at = created_at + make_interval(secs => ?3)",
                runId, pod.name(), (double) config.worker().lease().toSeconds()), () -> taskRows(runId));
        fixtures.awaitStatus(runId, "SUCCEEDED");
    }

    /**
     * A burst of more starts than slots: those that find a slot free are leased at start, never more than there are
     * slots, and the rest queued. The burst's first start finds the slots free ({@link SlotsToSpare}), so it is leased.
     */
    @Test
    void withEverySlotBusyAStartQueuesItsFirstStepForAClaim() {
        String workflow = fixtures.define(TENANT, """
                {"nodes":[{"id":"nap","type":"task","handler":"sleep","input":{"ms":4000}}]}""");
        int threads = config.worker().threads();
        List<UUID> runs = new ArrayList<>();
        for (int i = 0; i < threads + 4; i++) {
            runs.add(fixtures.start(TENANT, workflow));
        }
        try {
            String rows = runs.stream().map(this::taskRows).toList().toString();
            // Leased by the start itself: the lease ends exactly one lease after the row was created.
            long eager = runs.stream().filter(runId -> fixtures.count("SELECT count(*) FROM eec_queue_item"
                    + " WHERE run_id = ?1 AND available_at = created_at + make_interval(secs => ?2)", runId,
                    (double) config.worker().lease().toSeconds()) == 1).count();
            assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1"
                    + " AND available_at = created_at + make_interval(secs => ?2)", runs.get(0),
                    (double) config.worker().lease().toSeconds()), "the first start found a slot free: " + rows);
            assertTrue(eager <= threads, eager + " of " + runs.size() + " leased at start with " + threads + " slots: " + rows);
        } finally {
            runs.forEach(runId -> fixtures.awaitStatus(runId, "SUCCEEDED"));
        }
    }

    /**
     * The in-process worker on, in an application of its own ({@link PreparedStartTest} shares it), whose slots only
     * these tests' steps take, each awaited to its end: a start finds a slot free, since no test keeps more than
     * {@code threads} steps at once. Eager dispatch pinned, whatever the switch says ({@code -Pslow-paths}): leasing at
     * start is what these tests are about (the overrides are system properties while the app runs, so they beat the
     * profile's own).
     */
    public static class SlotsToSpare implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("ductor.worker.threads", "12", "ductor.dispatch.local", "eager");
        }
    }
}
