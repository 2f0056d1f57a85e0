package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Cancellation and the operator's version-checked PATCH, over HTTP. */
@QuarkusTest
@Tag("api")
class RunCommandApiTest {

    private static final String WAITS = "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"open\"},"
            + "{\"id\":\"work\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"gate\"]}]}";

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    private String etag(Api api, String runId) {
        return api.run(runId).header("ETag");
    }

    @Test
    void cancellingARunningRunEndsItCancelledAndASecondCancelIs409() throws Exception {
        Api api = new Api(issuer);
        String runId = api.start(api.define(WAITS));
        api.as("operator").post("/api/v1/runs/{id}/cancel", runId).then().statusCode(202);
        assertEquals("CANCELLED", api.awaitStatus(runId, "CANCELLED"));
        assertEquals("CANCELLED", api.run(runId).path("nodes.gate.state"));
        Response again = api.as("operator").post("/api/v1/runs/{id}/cancel", runId);
        assertEquals(409, again.statusCode());
        assertTrue(again.contentType().startsWith("application/problem+json"));
        api.as("client").post("/api/v1/runs/{id}/cancel", runId).then().statusCode(403);
    }

    @Test
    void patchWithoutIfMatchIs428AndWithAStaleOneIs409KeepingWhatWasSent() {
        Api api = new Api(issuer);
        String runId = api.start(api.define(WAITS));
        String body = "{\"tier\":\"interactive\"}";

        Response missing = api.as("operator").body(body).patch("/api/v1/runs/{id}", runId);
        assertEquals(428, missing.statusCode());
        assertTrue(missing.contentType().startsWith("application/problem+json"));

        Response stale = api.as("operator").header("If-Match", "\"7\"").body(body).patch("/api/v1/runs/{id}", runId);
        assertEquals(409, stale.statusCode());
        assertEquals("interactive", stale.path("rejected.tier"), "the 409 keeps what the operator sent");
        assertEquals(0, (Integer) stale.path("current.version"));
        assertEquals("standard", stale.path("current.tier"));
        assertTrue(stale.<String>path("detail").contains("NOT saved"));
        assertEquals("standard", api.run(runId).path("tier"), "nothing was changed");
    }

    @Test
    void patchingTheTierMovesTheRunAndItsQueuedWorkAndBumpsTheVersion() {
        Api api = new Api(issuer);
        String runId = api.start(api.define("{\"nodes\":[{\"id\":\"t\",\"type\":\"task\",\"handler\":\"ext:idle\"}]}"));
        String etag = etag(api, runId);

        Response patched = api.as("operator").header("If-Match", etag).body("{\"tier\":\"bulk\"}").patch("/api/v1/runs/{id}", runId);
        assertEquals(200, patched.statusCode());
        assertEquals("bulk", patched.path("tier"));
        assertEquals("\"" + patched.<Integer>path("version") + "\"", patched.header("ETag"));
        assertTrue(!etag.equals(patched.header("ETag")));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND tier = 'bulk'", UUID.fromString(runId)));

        api.as("operator").header("If-Match", etag).body("{\"tier\":\"interactive\"}").patch("/api/v1/runs/{id}", runId)
                .then().statusCode(409);
    }

    @Test
    void skippingAWaitingNodeLetsItsDependantsRun() throws Exception {
        Api api = new Api(issuer);
        String runId = api.start(api.define(WAITS));
        Response patched = api.as("operator").header("If-Match", etag(api, runId))
                .body("{\"nodes\":{\"gate\":{\"action\":\"skip\"}}}").patch("/api/v1/runs/{id}", runId);
        assertEquals(200, patched.statusCode());
        assertEquals("SKIPPED", patched.path("nodes.gate.state"));
        assertEquals("SUCCEEDED", api.awaitStatus(runId, "SUCCEEDED"));
    }

    @Test
    void retryingARunningTaskDispatchesANewAttemptAndIgnoresTheOldOne() {
        Api api = new Api(issuer);
        String handler = "ext:hung-" + UUID.randomUUID();
        String runId = api.start(api.define("{\"nodes\":[{\"id\":\"t\",\"type\":\"task\",\"handler\":\"" + handler + "\"}]}"));
        UUID run = UUID.fromString(runId);
        // A worker holds attempt 1 and hangs.
        Map<String, Object> first = claim(api, handler);
        assertEquals(1, first.get("attempt"));

        Response patched = api.as("operator").header("If-Match", etag(api, runId))
                .body("{\"nodes\":{\"t\":{\"action\":\"retry\"}}}").patch("/api/v1/runs/{id}", runId);
        assertEquals(200, patched.statusCode());
        assertEquals(2, (Integer) patched.path("nodes.t.attempts"));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND attempt = 2", run));

        // The hung worker comes back with attempt 1's result: refused, and the run does not move.
        long version = fixtures.version(run);
        Response late = api.as("worker").body("{\"leaseToken\":\"" + first.get("leaseToken") + "\",\"output\":{\"attempt\":1}}")
                .post("/api/v1/tasks/{id}/complete", first.get("taskId"));
        assertEquals(409, late.statusCode(), "attempt 1's completion after the retry: " + late.asString());
        assertEquals(version, fixtures.version(run), "attempt 1's completion changed the run");
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1", run), "attempt 1's result was recorded");

        // Attempt 2 is the one that counts.
        Map<String, Object> second = claim(api, handler);
        assertEquals(2, second.get("attempt"));
        api.as("worker").body("{\"leaseToken\":\"" + second.get("leaseToken") + "\",\"output\":{\"attempt\":2}}")
                .post("/api/v1/tasks/{id}/complete", second.get("taskId")).then().statusCode(200);
        assertEquals("SUCCEEDED", api.awaitStatus(runId, "SUCCEEDED"));
        assertEquals(2, (Integer) api.run(runId).path("nodes.t.output.attempt"));
        assertEquals(2, (Integer) api.run(runId).path("nodes.t.attempts"));
    }

    private Map<String, Object> claim(Api api, String handler) {
        List<Map<String, Object>> tasks = api.as("worker")
                .body("{\"handlers\":[\"" + handler + "\"],\"workerId\":\"w1\",\"max\":1,\"waitSeconds\":10}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$");
        assertEquals(1, tasks.size(), "one task claimed: " + tasks);
        return tasks.get(0);
    }

    @Test
    void actionsThatCannotApplyAre409AndBadPatchesAre400() {
        Api api = new Api(issuer);
        String runId = api.start(api.define(WAITS));
        String etag = etag(api, runId);
        api.as("operator").header("If-Match", etag).body("{\"nodes\":{\"gate\":{\"action\":\"retry\"}}}")
                .patch("/api/v1/runs/{id}", runId).then().statusCode(409);
        api.as("operator").header("If-Match", etag).body("{\"nodes\":{\"nope\":{\"action\":\"skip\"}}}")
                .patch("/api/v1/runs/{id}", runId).then().statusCode(409);
        api.as("operator").header("If-Match", etag).body("{\"nodes\":{\"gate\":{\"action\":\"explode\"}}}")
                .patch("/api/v1/runs/{id}", runId).then().statusCode(400);
        api.as("operator").header("If-Match", etag).body("{\"tier\":\"gold\"}").patch("/api/v1/runs/{id}", runId).then().statusCode(400);
        api.as("operator").header("If-Match", etag).body("{}").patch("/api/v1/runs/{id}", runId).then().statusCode(400);
        api.as("operator").header("If-Match", etag).body("{\"status\":\"SUCCEEDED\"}").patch("/api/v1/runs/{id}", runId).then().statusCode(400);
        api.as("client").header("If-Match", etag).body("{\"tier\":\"bulk\"}").patch("/api/v1/runs/{id}", runId).then().statusCode(403);
        assertEquals(etag, etag(api, runId), "nothing changed");
    }
}
