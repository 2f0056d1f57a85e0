package dev.ductor.run.coordinator;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import dev.ductor.support.Api;
import dev.ductor.support.ManualCoordination;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run whose tick errors on every delivery (here its node states fail their checksum, so it cannot even be read)
 * is parked after {@code ductor.coordinator.max-failed-deliveries} (5) failed deliveries instead of coming back every
 * lease for ever: its wakeup is dead-lettered (kept, metered, shown by the API), and once the row is repaired an
 * operator re-queues it and the run carries on. The test plays the coordinator pod: it runs claim rounds itself and
 * ends each lease by hand instead of waiting 30 s for it (its rounds may claim other tests' leftovers too, so what is
 * counted is this run's own items).
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("api")
class PoisonRunTest {

    private static final int MAX_FAILED_DELIVERIES = 5;
    private static final String CHAIN = "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"open\"},"
            + "{\"id\":\"work\",\"type\":\"task\",\"handler\":\"ext:poison\",\"dependsOn\":[\"gate\"]}]}";

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    @Inject
    CoordinatorLoop loop;

    @Inject
    EntityManager em;

    @Inject
    MeterRegistry registry;

    private void sql(String statement, Object... params) {
        QuarkusTransaction.requiringNew().run(() -> {
            var query = em.createNativeQuery(statement);
            for (int i = 0; i < params.length; i++) {
                query.setParameter(i + 1, params[i]);
            }
            query.executeUpdate();
        });
    }

    private String nodeStates(UUID runId) {
        return QuarkusTransaction.requiringNew().call(() -> (String) em.createNativeQuery(
                "SELECT CAST(node_states AS text) FROM eec_workflow_run WHERE run_id = ?1").setParameter(1, runId).getSingleResult());
    }

    /** One coordinator round, then the lease of whatever it left claimed for this run ends (as 30 s later). */
    private void deliverOnce(UUID runId) {
        loop.round();
        sql("UPDATE eec_queue_item SET available_at = now() - interval '1 second'"
                + " WHERE run_id = ?1 AND kind = 'WAKEUP' AND lease_token IS NOT NULL", runId);
    }

    /** How often the run's wakeups were claimed, in all (a claim counts itself on the item). */
    private long deliveries(UUID runId) {
        return fixtures.count("SELECT coalesce(sum(deliveries), 0) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'WAKEUP'", runId);
    }

    @Test
    void aRunWhoseTickAlwaysFailsIsParkedAndAnOperatorRetriesItOnceRepaired() {
        Api api = new Api(issuer);
        String runId = api.start(api.define(CHAIN));
        UUID id = UUID.fromString(runId);
        String healthy = nodeStates(id);
        sql("UPDATE eec_workflow_run SET node_states = jsonb_set(node_states, '{gate,attempts}', '3') WHERE run_id = ?1", id);
        api.as("client").body("{\"name\":\"open\",\"idempotencyKey\":\"open-1\"}").post("/api/v1/runs/{id}/signals", runId)
                .then().statusCode(202);
        double deadBefore = registry.counter("ductor.dead.letters").count();

        for (int delivery = 0; delivery < MAX_FAILED_DELIVERIES + 3; delivery++) {
            deliverOnce(id);
        }

        assertEquals(MAX_FAILED_DELIVERIES, deliveries(id), "delivered five times, then parked: not for ever");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'WAKEUP'", id),
                "the wakeup is kept, not deleted");
        assertTrue(registry.counter("ductor.dead.letters").count() >= deadBefore + 1, "metered (other tests' parked runs count too)");

        // The row fails verification, so a GET refuses it (run-state-corrupt, never served as healthy); what parked
        // it is on the dead-letter list.
        Response run = api.run(runId);
        assertEquals(500, run.statusCode());
        assertEquals("corrupt", run.path("integrity"));
        Response parked = api.as("operator").get("/api/v1/dead-letters");
        assertEquals(200, parked.statusCode());
        assertEquals(List.of(runId), parked.path("items.runId"), "the tenant's parked runs");
        assertEquals(1, (Integer) parked.path("items[0].items"));
        assertEquals(MAX_FAILED_DELIVERIES, (Integer) parked.path("items[0].failedDeliveries"));
        assertTrue(((String) parked.path("items[0].lastError")).contains("checksum"), (String) parked.path("items[0].lastError"));
        assertNotNull(parked.path("items[0].since"));

        api.as("client").body("{\"name\":\"open\",\"idempotencyKey\":\"open-2\"}").post("/api/v1/runs/{id}/signals", runId)
                .then().statusCode(202);
        deliverOnce(id);
        deliverOnce(id);
        assertEquals(MAX_FAILED_DELIVERIES + 1, deliveries(id), "a later wakeup of a parked run fails once, then joins");
        assertEquals(2, (Integer) api.as("operator").get("/api/v1/dead-letters").path("items[0].items"));

        Api stranger = new Api(issuer);
        Response foreign = stranger.as("operator").post("/api/v1/runs/{id}/dead-letters/retry", runId);
        assertEquals(404, foreign.statusCode(), "another tenant's run is not there");
        assertTrue(foreign.contentType().startsWith("application/problem+json"));
        assertEquals(403, api.as("client").post("/api/v1/runs/{id}/dead-letters/retry", runId).statusCode());
        assertEquals(400, api.as("operator").post("/api/v1/runs/{id}/dead-letters/retry", "not-a-run").statusCode());

        sql("UPDATE eec_workflow_run SET node_states = CAST(?2 AS jsonb) WHERE run_id = ?1", id, healthy); // the operator repairs the row
        Response retried = api.as("operator").post("/api/v1/runs/{id}/dead-letters/retry", runId);
        assertEquals(202, retried.statusCode());
        assertEquals(2, (Integer) retried.path("requeued"));
        loop.round();

        assertEquals("SUCCEEDED", fixtures.nodeState(id, "gate"), "the re-queued wakeup ticked the repaired run");
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'WAKEUP'", id));
        assertNull(api.run(runId).path("deadLetters"));
        Response again = api.as("operator").post("/api/v1/runs/{id}/dead-letters/retry", runId);
        assertEquals(200, again.statusCode(), "nothing left to retry is not an error");
        assertEquals(0, (Integer) again.path("requeued"));
    }
}
