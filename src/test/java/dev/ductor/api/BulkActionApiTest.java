package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** POST /bulk-actions: a dry run's count and sample, a bulk reset of 50 failed runs with its progress, cancel, 400/404. */
@QuarkusTest
@Tag("api")
class BulkActionApiTest {

    private static final String BROKEN = """
            {"nodes": [
              {"id": "load", "type": "task", "handler": "echo"},
              {"id": "charge", "type": "task", "handler": "fail", "dependsOn": ["load"], "input": {"message": "bug", "retryable": false}}]}""";

    @Inject
    DevTokenIssuer issuer;

    @Test
    void aBulkResetOfFiftyFailedRunsResetsEachOnceAndReportsItsProgress() {
        Api api = new Api(issuer);
        String workflow = api.define(BROKEN);
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            runs.add(api.start(workflow));
        }
        for (String run : runs) {
            assertEquals("FAILED", api.awaitTerminal(run).getString("status"));
        }
        api.updateWorkflow(workflow, BROKEN.replace("\"fail\"", "\"echo\""));
        String filter = "\"filter\": {\"workflow\": \"" + workflow + "\", \"status\": \"FAILED\", \"revision\": 1}";

        Response preview = bulk(api, "{\"action\": \"reset\", " + filter + ", \"dryRun\": true}");
        assertEquals(200, preview.statusCode(), preview.asString());
        assertEquals(50, preview.jsonPath().getInt("matched"));
        List<String> sample = preview.jsonPath().getList("sample");
        assertEquals(10, sample.size());
        assertTrue(runs.containsAll(sample), sample.toString());

        Response created = bulk(api, "{\"action\": \"reset\", " + filter + ", \"toRevision\": \"current\"}");
        assertEquals(202, created.statusCode(), created.asString());
        String id = created.jsonPath().getString("id");
        assertEquals(50, created.jsonPath().getInt("matched"));
        // Meanwhile an operator resets one of them by hand: either it wins (the job then skips that run: its version
        // moved) or the job wins (the operator's If-Match is stale: 409). Never both.
        String first = runs.get(0);
        Response byHand = api.as("operator").header("If-Match", api.run(first).header("ETag")).body("{\"failedOnly\": true, \"toRevision\": \"current\"}")
                .post("/api/v1/runs/{id}/reset", first);
        assertTrue(byHand.statusCode() == 200 || byHand.statusCode() == 409, byHand.asString());

        JsonPath progress = null;
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            progress = api.as("operator").get("/api/v1/bulk-actions/{id}", id).then().statusCode(200).extract().jsonPath();
            if ("SUCCEEDED".equals(progress.getString("status"))) {
                break;
            }
            Api.sleep(100);
        }
        assertEquals("SUCCEEDED", progress.getString("status"), progress.prettify());
        assertEquals(50, progress.getInt("matched"));
        assertEquals(byHand.statusCode() == 200 ? 49 : 50, progress.getInt("done"), progress.prettify());
        assertEquals(byHand.statusCode() == 200 ? 1 : 0, progress.getInt("skipped"), progress.prettify());
        assertEquals(0, progress.getInt("failed"));
        for (String run : runs) {
            JsonPath done = api.awaitTerminal(run);
            assertEquals("SUCCEEDED", done.getString("status"), done.prettify());
            assertEquals(2, done.getInt("revision"));
            assertEquals(2, done.getInt("nodes.charge.attempts"), "reset once: " + run);
        }
        Response again = api.as("operator").post("/api/v1/bulk-actions/{id}/cancel", id);
        assertEquals(409, again.statusCode(), "a finished job cannot be cancelled: " + again.asString());
        assertEquals(404, new Api(issuer).as("operator").get("/api/v1/bulk-actions/{id}", id).statusCode(), "another tenant's job");
    }

    @Test
    void aJobCanBeCancelledAndBadRequestsAre400() {
        Api api = new Api(issuer);
        String workflow = api.define("{\"nodes\": [{\"id\": \"s\", \"type\": \"signal\", \"signal\": \"go\"}]}");
        String run = api.start(workflow);
        Response created = bulk(api, "{\"action\": \"cancel\", \"filter\": {\"workflow\": \"" + workflow + "\", \"status\": \"RUNNING\"}}");
        assertEquals(202, created.statusCode(), created.asString());
        String id = created.jsonPath().getString("id");
        Response cancelled = api.as("operator").post("/api/v1/bulk-actions/{id}/cancel", id);
        assertTrue(cancelled.statusCode() == 200 || cancelled.statusCode() == 409, cancelled.asString());
        String status = api.as("operator").get("/api/v1/bulk-actions/{id}", id).then().extract().path("status");
        assertTrue(List.of("CANCELLED", "SUCCEEDED").contains(status), status);
        if ("SUCCEEDED".equals(status)) {
            assertEquals("CANCELLED", api.awaitTerminal(run).getString("status"));
        }

        assertEquals(400, bulk(api, "{\"action\": \"delete\", \"filter\": {}}").statusCode());
        assertEquals(400, bulk(api, "{\"action\": \"cancel\", \"filter\": {\"status\": \"DONE\"}}").statusCode());
        assertEquals(400, bulk(api, "{\"action\": \"cancel\", \"filter\": {\"createdBefore\": \"yesterday\"}}").statusCode());
        assertEquals(400, bulk(api, "{\"action\": \"cancel\", \"filter\": {\"tag\": \"no-colon\"}}").statusCode());
        assertEquals(400, bulk(api, "{\"action\": \"cancel\", \"toRevision\": \"current\"}").statusCode());
        assertEquals(403, api.as("client").contentType("application/json").body("{\"action\": \"cancel\"}").post("/api/v1/bulk-actions").statusCode());
        assertEquals(404, api.as("operator").get("/api/v1/bulk-actions/{id}", "0b6f2c1e-8d4a-4f3e-9c71-2a5e6d8f9b10").statusCode());
    }

    private static Response bulk(Api api, String body) {
        return api.as("operator").body(body).post("/api/v1/bulk-actions");
    }
}
