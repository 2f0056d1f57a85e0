package dev.ductor.run.command;

import dev.ductor.queue.QueueItem;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import dev.ductor.support.Api;
import dev.ductor.support.ManualCoordination;
import dev.ductor.worker.TaskResults;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An operator's PATCH is decided on the state its actions meet: the run as it is once its pending inbox is applied,
 * as every tick applies it first. With the coordinator off, a result waits in the inbox while the operator, who
 * cannot see it, acts on the run as last committed.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("api")
class PatchMeetsPendingInboxTest {

    private static final String RETRY_T = "{\"nodes\":{\"t\":{\"action\":\"retry\"}}}";

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    @Inject
    TaskResults results;

    private static void assertConflict(Response response, String type) {
        assertEquals(409, response.statusCode(), response.asString());
        assertTrue(response.contentType().startsWith("application/problem+json"));
        assertEquals("https://ductor.dev/problems/" + type, response.path("type"), response.asString());
        assertEquals("retry", response.path("rejected.nodes.t.action"), "the 409 keeps what the operator sent");
        assertTrue(response.<String>path("detail").contains("not applied"), response.<String>path("detail"));
    }

    @Test
    void aRetryThatMeetsAPendingFailureIs409NotA200ForARunThatEndsFailed() {
        Api api = new Api(issuer);
        String runId = api.start(api.define("{\"nodes\":[{\"id\":\"t\",\"type\":\"task\",\"handler\":\"ext:pay\"}]}"));
        String etag = api.run(runId).header("ETag");
        QueueItem task = fixtures.claimTasks(UUID.fromString(runId), Set.of("ext:pay")).get(0);
        results.fail(task.id(), task.leaseToken(), "card declined", false); // in the inbox, not yet ticked

        Response patched = api.as("operator").header("If-Match", etag).body(RETRY_T).patch("/api/v1/runs/{id}", runId);

        assertConflict(patched, "run-terminal");
        assertEquals("FAILED", patched.path("current.status"), "current is the run as the action met it");
        assertEquals("FAILED", patched.path("current.nodes.t.state"));
        assertEquals(1, (Integer) patched.path("current.nodes.t.attempts"), "no second attempt");
        Response now = api.run(runId);
        assertEquals("FAILED", now.path("status"));
        assertEquals("\"" + patched.<Integer>path("current.version") + "\"", now.header("ETag"), "current is what is stored");
        assertEquals(1, (Integer) now.path("nodes.t.attempts"));
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND kind = 'TASK'",
                UUID.fromString(runId)), "no attempt was dispatched");
    }

    @Test
    void aRetryThatMeetsAPendingCompletionIs409NodeActionRefusedWithTheNodeAsItIsNow() {
        Api api = new Api(issuer);
        String runId = api.start(api.define("{\"nodes\":[{\"id\":\"t\",\"type\":\"task\",\"handler\":\"ext:ship\"},"
                + "{\"id\":\"after\",\"type\":\"task\",\"handler\":\"ext:ship\",\"dependsOn\":[\"t\"]}]}"));
        String etag = api.run(runId).header("ETag");
        QueueItem task = fixtures.claimTasks(UUID.fromString(runId), Set.of("ext:ship")).get(0);
        results.complete(task.id(), task.leaseToken(), fixtures.json("{\"shipped\":true}"));

        Response patched = api.as("operator").header("If-Match", etag).body(RETRY_T).patch("/api/v1/runs/{id}", runId);

        assertConflict(patched, "node-action-refused");
        assertEquals("SUCCEEDED", patched.path("current.nodes.t.state"));
        assertEquals("RUNNING", patched.path("current.nodes.after.state"));
        assertEquals("t", patched.path("node"));
        assertEquals(1, (Integer) api.run(runId).path("nodes.t.attempts"), "the retry was not applied");
    }

    @Test
    void aRefusalOnTheCommittedStateCarriesCurrentAndRejectedAndChangesNothing() {
        Api api = new Api(issuer);
        String runId = api.start(api.define("{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"open\"},"
                + "{\"id\":\"t\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"gate\"]}]}"));
        String etag = api.run(runId).header("ETag");

        Response patched = api.as("operator").header("If-Match", etag).body(RETRY_T).patch("/api/v1/runs/{id}", runId);

        assertConflict(patched, "node-action-refused");
        assertEquals("PENDING", patched.path("current.nodes.t.state"));
        assertEquals(etag, "\"" + patched.<Integer>path("current.version") + "\"");
        assertEquals(etag, api.run(runId).header("ETag"), "nothing changed");
    }

    @Test
    void aPatchOfAFinishedRunIs409RunTerminalWithCurrentAndRejected() throws Exception {
        Api api = new Api(issuer);
        String runId = api.start(api.define("{\"nodes\":[{\"id\":\"t\",\"type\":\"task\",\"handler\":\"ext:pay\"}]}"));
        QueueItem task = fixtures.claimTasks(UUID.fromString(runId), Set.of("ext:pay")).get(0);
        results.fail(task.id(), task.leaseToken(), "card declined", false);
        api.as("operator").header("If-Match", api.run(runId).header("ETag")).body("{\"tier\":\"bulk\"}")
                .patch("/api/v1/runs/{id}", runId); // whatever it answers, the failure is applied by now
        String etag = api.run(runId).header("ETag");
        assertEquals("FAILED", api.run(runId).path("status"));

        Response patched = api.as("operator").header("If-Match", etag).body(RETRY_T).patch("/api/v1/runs/{id}", runId);

        assertConflict(patched, "run-terminal");
        assertEquals("FAILED", patched.path("current.status"));
        assertEquals(etag, api.run(runId).header("ETag"), "nothing changed");
    }
}
