package dev.ductor.run;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.PodIdentity;
import dev.ductor.support.Fixtures;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A start leases its first steps to its own pod when a step worker slot is free (eager dispatch), so they start
 * without a claim; with every slot busy it queues them for any pod to claim, as before.
 */
@QuarkusTest
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
                {"nodes":[{"id":"nap","type":"task","handler":"sleep","input":{"ms":3000}}]}""");

        UUID runId = fixtures.start(TENANT, workflow);

        // Leased at insert: its lease ends exactly one lease after the row was created. A claim would have leased an
        // unleased row later, so its lease would end later than that.
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND node_id = 'nap'"
                        + " AND lease_owner = ?2 AND deliveries = 1"
                        + " AND available_at = created_at + make_interval(secs => ?3)",
                runId, pod.name(), (double) config.worker().lease().toSeconds()),
                () -> "the first step is leased to this pod by the start itself; its row: " + taskRows(runId));
        fixtures.awaitStatus(runId, "SUCCEEDED");
    }

    @Test
    void withEverySlotBusyAStartQueuesItsFirstStepForAClaim() {
        String workflow = fixtures.define(TENANT, """
                {"nodes":[{"id":"nap","type":"task","handler":"sleep","input":{"ms":4000}}]}""");
        List<UUID> busy = new ArrayList<>();
        for (int i = 0; i < config.worker().threads(); i++) {
            busy.add(fixtures.start(TENANT, workflow));
        }

        UUID waiting = fixtures.start(TENANT, workflow);

        try {
            assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND lease_token IS NULL",
                    waiting), () -> "no slot was free: queued, unleased, for whichever pod claims it first; its row: "
                    + taskRows(waiting) + ", the busy ones: " + busy.stream().map(this::taskRows).toList());
        } finally {
            busy.forEach(runId -> fixtures.awaitStatus(runId, "SUCCEEDED"));
            fixtures.awaitStatus(waiting, "SUCCEEDED");
        }
    }
}
