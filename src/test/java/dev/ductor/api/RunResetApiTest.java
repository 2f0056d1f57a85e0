package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** POST /runs/{id}/reset: a finished run reopened from some of its nodes, as one versioned commit. */
@QuarkusTest
@Tag("api")
class RunResetApiTest {

    private static final String BROKEN = """
            {"nodes": [{"id": "a", "type": "task", "handler": "echo", "input": {"step": "a"}},
                       {"id": "b", "type": "task", "handler": "fail", "dependsOn": ["a"], "input": {"message": "bug"}},
                       {"id": "c", "type": "task", "handler": "echo", "dependsOn": ["b"], "input": {"step": "c"}}]}""";
    private static final String FIXED = BROKEN.replace("\"handler\": \"fail\", \"dependsOn\": [\"a\"], \"input\": {\"message\": \"bug\"}",
            "\"handler\": \"echo\", \"dependsOn\": [\"a\"], \"input\": {\"step\": \"b\"}");

    @Inject
    DevTokenIssuer issuer;

    private static Response reset(Api api, String runId, String etag, String body) {
        var request = api.as("operator").body(body);
        if (etag != null) {
            request = request.header("If-Match", etag);
        }
        return request.post("/api/v1/runs/{id}/reset", runId);
    }

    @Test
    void aFailedRunResetOnTheCurrentRevisionEndsSucceededWithAHistoryOfBothLives() {
        Api api = new Api(issuer);
        String workflow = api.define(BROKEN);
        String runId = api.start(workflow);
        assertEquals("FAILED", api.awaitTerminal(runId).getString("status"));
        api.updateWorkflow(workflow, FIXED);
        String etag = api.run(runId).header("ETag");

        Response reset = reset(api, runId, etag, "{\"failedOnly\": true, \"toRevision\": \"current\"}");
        assertEquals(200, reset.statusCode(), reset.asString());
        assertTrue(Long.parseLong(reset.header("ETag").replace("\"", "")) > Long.parseLong(etag.replace("\"", "")));

        JsonPath run = api.awaitTerminal(runId);
        assertEquals("SUCCEEDED", run.getString("status"), run.prettify());
        assertEquals(2, run.getInt("revision"), "the run moved to the fixed revision");
        assertEquals(2, run.getInt("nodes.b.attempts"), "attempts go on counting across the reset");
        assertEquals(1, run.getInt("nodes.a.attempts"), "a succeeded before and was not reset");
        assertEquals(Map.of("step", "c"), run.getMap("nodes.c.output"));

        List<Map<String, Object>> history = api.history(runId).then().statusCode(200).extract().jsonPath().getList("$");
        List<String> lives = history.stream().filter(t -> t.get("node") == null)
                .map(t -> t.get("from") + "->" + t.get("to")).toList();
        assertEquals(List.of("null->RUNNING", "RUNNING->FAILED", "FAILED->RUNNING", "RUNNING->SUCCEEDED"), lives);
        Map<String, Object> reopened = history.stream().filter(t -> t.get("node") == null && "FAILED".equals(t.get("from")))
                .findFirst().orElseThrow();
        assertTrue(String.valueOf(reopened.get("cause")).contains("reset by ") && String.valueOf(reopened.get("cause"))
                .contains("now on revision 2"), "the history says who reset it and onto what: " + reopened);
        assertTrue(history.stream().anyMatch(t -> "b".equals(t.get("node")) && "FAILED".equals(t.get("to"))),
                "the first life's failure stays in the history");
        for (int i = 1; i < history.size(); i++) {
            assertEquals(((Number) history.get(i - 1).get("seq")).longValue() + 1, ((Number) history.get(i).get("seq")).longValue());
        }
    }

    @Test
    void aResetNeedsTheVersionTheOperatorSawAndRefusesARunThatStillRunsOrSucceededWithoutAsking() {
        Api api = new Api(issuer);
        String runId = api.start(api.define(BROKEN));
        assertEquals("FAILED", api.awaitTerminal(runId).getString("status"));

        assertEquals(428, reset(api, runId, null, "{\"failedOnly\": true}").statusCode());
        Response stale = reset(api, runId, "\"0\"", "{\"failedOnly\": true}");
        assertEquals(409, stale.statusCode(), stale.asString());
        assertEquals("FAILED", stale.jsonPath().getString("current.status"), "409 carries the run as it is now");
        assertEquals(true, stale.jsonPath().getBoolean("rejected.failedOnly"), "and what was sent");
        assertEquals(400, reset(api, runId, api.run(runId).header("ETag"), "{}").statusCode());
        Response unknown = reset(api, runId, api.run(runId).header("ETag"), "{\"fromNodes\": [\"zz\"]}");
        assertEquals(409, unknown.statusCode(), unknown.asString());
        assertEquals("FAILED", api.run(runId).jsonPath().getString("status"), "nothing was saved");

        Api other = new Api(issuer);
        assertEquals(404, reset(other, runId, "\"1\"", "{\"failedOnly\": true}").statusCode(), "another tenant's run");

        String ok = api.start(api.define("{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"echo\"}]}"));
        assertEquals("SUCCEEDED", api.awaitTerminal(ok).getString("status"));
        Response succeeded = reset(api, ok, api.run(ok).header("ETag"), "{\"fromNodes\": [\"a\"]}");
        assertEquals(409, succeeded.statusCode());
        assertTrue(succeeded.asString().contains("reopenSucceeded"), succeeded.asString());
        Response again = reset(api, ok, api.run(ok).header("ETag"), "{\"fromNodes\": [\"a\"], \"reopenSucceeded\": true}");
        assertEquals(200, again.statusCode(), again.asString());
        JsonPath rerun = api.awaitTerminal(ok);
        assertEquals("SUCCEEDED", rerun.getString("status"));
        assertEquals(2, rerun.getInt("nodes.a.attempts"));

        String waiting = api.start(api.define("{\"nodes\": [{\"id\": \"s\", \"type\": \"signal\", \"signal\": \"go\"}]}"));
        Response running = reset(api, waiting, api.run(waiting).header("ETag"), "{\"fromNodes\": [\"s\"]}");
        assertEquals(409, running.statusCode());
        assertTrue(running.asString().contains("run-running"), running.asString());
    }
}
