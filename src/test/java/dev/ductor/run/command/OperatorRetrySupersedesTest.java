package dev.ductor.run.command;

import dev.ductor.queue.QueueItem;
import dev.ductor.run.coordinator.Attempts;
import dev.ductor.run.coordinator.TickRetries;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import dev.ductor.support.Api;
import dev.ductor.support.ManualCoordination;
import dev.ductor.worker.LeaseReaper;
import dev.ductor.worker.TaskResults;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An operator's retry or skip replaces the node's current attempt: that attempt must not run as well. Its task row,
 * if still waiting for a claim, goes in the same commit; if a worker holds it, the worker is fenced off.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("api")
class OperatorRetrySupersedesTest {

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    @Inject
    TaskResults results;

    @Inject
    TickRetries retries;

    @Inject
    LeaseReaper reaper;

    @Inject
    Clock clock;

    @Inject
    jakarta.persistence.EntityManager em;

    /** pay, retried after five minutes, then ship. */
    private static String node(String handler) {
        return "{\"nodes\":[{\"id\":\"pay\",\"type\":\"task\",\"handler\":\"" + handler + "\","
                + "\"retry\":{\"maxAttempts\":3,\"backoff\":\"PT5M\"}},"
                + "{\"id\":\"ship\",\"type\":\"task\",\"handler\":\"ext:ship\",\"dependsOn\":[\"pay\"]}]}";
    }

    private Response patch(Api api, String runId, String action) {
        return api.as("operator").header("If-Match", api.run(runId).header("ETag"))
                .body("{\"nodes\":{\"pay\":{\"action\":\"" + action + "\"}}}").patch("/api/v1/runs/{id}", runId);
    }

    /** The attempts of pay that are queued or leased. */
    @SuppressWarnings("unchecked")
    private List<Number> queuedAttempts(UUID runId) {
        return io.quarkus.narayana.jta.QuarkusTransaction.requiringNew().call(() -> em.createNativeQuery(
                        "SELECT attempt FROM eec_queue_item WHERE run_id = ?1 AND kind = 'TASK' AND node_id = 'pay' ORDER BY attempt")
                .setParameter(1, runId).getResultList());
    }

    /** pay's first attempt failed: its second is queued, waiting out a five-minute backoff. */
    private UUID backedOff(Api api, String handler) {
        UUID runId = UUID.fromString(api.start(api.define(node(handler))));
        QueueItem first = fixtures.claimTasks(runId, Set.of(handler)).get(0);
        results.fail(first.id(), first.leaseToken(), "gateway timeout", true);
        retries.tick(runId, List.of(), List.of(), new Attempts());
        assertEquals(List.of(2), queuedAttempts(runId).stream().map(Number::intValue).toList());
        return runId;
    }

    @Test
    void aRetryDeletesTheQueuedAttemptItReplacesInTheSameCommit() {
        Api api = new Api(issuer);
        String handler = "ext:pay-" + UUID.randomUUID();
        UUID runId = backedOff(api, handler);

        Response patched = patch(api, runId.toString(), "retry");

        assertEquals(200, patched.statusCode(), patched.asString());
        assertEquals(3, (Integer) patched.path("nodes.pay.attempts"));
        assertEquals(List.of(3), queuedAttempts(runId).stream().map(Number::intValue).toList(),
                "attempt 2 would have been run five minutes later, a second call for the same step");
    }

    @Test
    void aSkipDeletesTheQueuedAttemptOfTheNode() {
        Api api = new Api(issuer);
        String handler = "ext:pay-" + UUID.randomUUID();
        UUID runId = backedOff(api, handler);

        Response patched = patch(api, runId.toString(), "skip");

        assertEquals(200, patched.statusCode(), patched.asString());
        assertEquals("SKIPPED", patched.path("nodes.pay.state"));
        assertEquals("RUNNING", patched.path("nodes.ship.state"));
        assertEquals(List.of(), queuedAttempts(runId), "nothing of a skipped node may run");
    }

    @Test
    void aWorkerHoldingTheReplacedAttemptIsFencedOnItsNextHeartbeatAndReport() {
        Api api = new Api(issuer);
        String handler = "ext:hung-" + UUID.randomUUID();
        String runId = api.start(api.define(node(handler)));
        List<Map<String, Object>> claimed = api.as("worker")
                .body("{\"handlers\":[\"" + handler + "\"],\"workerId\":\"w1\",\"max\":1}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$");
        Object taskId = claimed.get(0).get("taskId");
        String lease = "{\"leaseToken\":\"" + claimed.get(0).get("leaseToken") + "\"";

        assertEquals(200, patch(api, runId, "retry").statusCode());

        Response heartbeat = api.as("worker").body(lease + "}").post("/api/v1/tasks/{id}/heartbeat", taskId);
        assertEquals(409, heartbeat.statusCode(), "the worker must learn to stop: " + heartbeat.asString());
        assertEquals("https://ductor.dev/problems/lease-lost", heartbeat.path("type"));
        Response completion = api.as("worker").body(lease + ",\"output\":{\"charged\":5}}")
                .post("/api/v1/tasks/{id}/complete", taskId);
        assertEquals(409, completion.statusCode(), completion.asString());
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND kind = 'TASK_RESULT'",
                UUID.fromString(runId)), "nothing of the old attempt was recorded");

        // Its row is reaped when the revoked lease would have ended; the failure it leaves is stale and changes nothing.
        reaper.runOnce(clock.instant().plus(java.time.Duration.ofMinutes(1)));
        retries.tick(UUID.fromString(runId), List.of(), List.of(), new Attempts());
        assertEquals("RUNNING", api.run(runId).path("nodes.pay.state"));
        assertEquals(2, (Integer) api.run(runId).path("nodes.pay.attempts"));
        List<Map<String, Object>> next = api.as("worker")
                .body("{\"handlers\":[\"" + handler + "\"],\"workerId\":\"w2\",\"max\":5}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$");
        assertEquals(1, next.size(), "only the new attempt is there to run: " + next);
        assertEquals(2, next.get(0).get("attempt"));
        assertTrue(!taskId.equals(next.get(0).get("taskId")));
    }
}
