package dev.ductor.api;

import dev.ductor.support.Api;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static dev.ductor.support.Api.definition;
import static dev.ductor.support.Api.node;
import static dev.ductor.support.Api.problem;
import static dev.ductor.support.Api.task;
import static dev.ductor.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
@Tag("api")
class RunApiTest {

    @Inject
    DevTokenIssuer issuer;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
    }

    @Test
    void startingARunAnswers201WithLocationAndTheRun() {
        String workflow = unique("chain");
        api.createWorkflow(workflow, Api.chain3());

        Response started = api.startRun(workflow, "{\"input\": {\"order\": 42}, \"tier\": \"interactive\"}");

        assertEquals(201, started.statusCode(), started::asString);
        JsonPath run = started.jsonPath();
        String runId = run.getString("runId");
        assertNotNull(runId);
        UUID.fromString(runId);
        assertEquals("/api/v1/runs/" + runId, Api.locationPath(started));
        assertEquals(workflow, run.getString("workflow"));
        assertEquals(1, run.getInt("revision"));
        assertNotNull(run.getString("status"));
        assertEquals(Set.of("a", "b", "c"), run.getMap("nodes").keySet());
        assertEquals(42, run.getInt("input.order"));
        assertNotNull(run.get("version"));
        assertEquals("\"" + run.getLong("version") + "\"", started.header("ETag"));
    }

    @Test
    void aChainOfThreeNoopTasksSucceedsAndItsHistoryIsContiguous() {
        String workflow = unique("chain");
        api.createWorkflow(workflow, Api.chain3());
        String runId = api.start(workflow);

        JsonPath run = api.awaitTerminal(runId);

        assertEquals("SUCCEEDED", run.getString("status"), run.prettify());
        for (String node : List.of("a", "b", "c")) {
            assertEquals("SUCCEEDED", run.getString("nodes." + node + ".state"), run.prettify());
            assertEquals(1, run.getInt("nodes." + node + ".attempts"), run.prettify());
        }

        Response got = api.run(runId);
        assertEquals(200, got.statusCode());
        JsonPath view = got.jsonPath();
        assertEquals(runId, view.getString("runId"));
        assertEquals(workflow, view.getString("workflow"));
        assertEquals(1, view.getInt("revision"));
        assertNotNull(view.getString("createdAt"));
        assertNotNull(view.getString("updatedAt"));
        assertEquals("\"" + view.getLong("version") + "\"", got.header("ETag"));

        Response historyResponse = api.history(runId);
        assertEquals(200, historyResponse.statusCode(), historyResponse::asString);
        List<Map<String, Object>> history = historyResponse.jsonPath().getList("$");
        assertFalse(history.isEmpty());
        for (int i = 0; i < history.size(); i++) {
            assertEquals(i + 1, ((Number) history.get(i).get("seq")).intValue(), "seq must be 1..n: " + history);
            assertNotNull(history.get(i).get("at"), "every transition has 'at'");
            assertNotNull(history.get(i).get("to"), "every transition has 'to'");
            assertNotNull(history.get(i).get("cause"), "every transition has 'cause'");
        }
        Map<String, Object> first = history.get(0);
        assertNull(first.get("node"), "the first entry is the run's own start: " + first);
        assertEquals("RUNNING", first.get("to"));
        Map<String, Object> last = history.get(history.size() - 1);
        assertNull(last.get("node"), "the last entry is the run's own end: " + last);
        assertEquals("RUNNING", last.get("from"));
        assertEquals("SUCCEEDED", last.get("to"));
        // The chain is followed in order: each node ends before the next one starts.
        assertTrue(indexOf(history, "a", "SUCCEEDED") < indexOf(history, "b", "RUNNING"), history::toString);
        assertTrue(indexOf(history, "b", "SUCCEEDED") < indexOf(history, "c", "RUNNING"), history::toString);
        assertEquals(8, history.size(), "start + 2 moves per node + end: " + history);
    }

    @Test
    void theSameIdempotencyKeyReturnsTheSameRunWith200() {
        String workflow = unique("idem");
        api.createWorkflow(workflow, Api.chain3());
        String body = "{\"input\": {\"n\": 1}, \"idempotencyKey\": \"order-1\"}";

        Response first = api.startRun(workflow, body);
        Response second = api.startRun(workflow, "{\"idempotencyKey\": \"order-1\", \"input\": {\"n\": 1.0}}");

        assertEquals(201, first.statusCode(), first::asString);
        assertEquals(200, second.statusCode(), second::asString);
        String runId = first.jsonPath().getString("runId");
        assertEquals(runId, second.jsonPath().getString("runId"));
        assertEquals(1, second.jsonPath().getInt("input.n"), "the existing run: the same body in another spelling is the same request");
        assertEquals("/api/v1/runs/" + runId, Api.locationPath(second));
        assertEquals("order-1", second.jsonPath().getString("idempotencyKey"), "the run shows the key it was started with");

        JsonPath list = api.as("client").queryParam("workflow", workflow).get("/api/v1/runs")
                .then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(runId), Api.ids(list));

        // Another key starts another run; its correlation key (what rules signal by) is shown too.
        Response other = api.startRun(workflow, "{\"idempotencyKey\": \"order-2\", \"correlationKey\": \"order-A-2\"}");
        assertEquals(201, other.statusCode(), other::asString);
        assertFalse(runId.equals(other.jsonPath().getString("runId")));
        assertEquals("order-A-2", other.jsonPath().getString("correlationKey"));
        assertEquals(null, first.jsonPath().getString("correlationKey"), "absent when none was given");
    }

    @Test
    void concurrentStartsWithOneKeyCreateExactlyOneRun() throws Exception {
        String workflow = unique("race");
        api.createWorkflow(workflow, Api.chain3());
        List<HttpResponse<String>> responses = api.concurrently(8, "client", "POST",
                "/api/v1/workflows/" + workflow + "/runs", "{\"idempotencyKey\": \"same-key\"}", Map.of());

        int created = 0;
        Set<String> runIds = new HashSet<>();
        for (HttpResponse<String> response : responses) {
            assertTrue(response.statusCode() == 200 || response.statusCode() == 201, () -> Api.describe(responses));
            if (response.statusCode() == 201) {
                created++;
            }
            runIds.add(JsonPath.from(response.body()).getString("runId"));
        }
        assertEquals(1, created, () -> "exactly one start creates the run:\n" + Api.describe(responses));
        assertEquals(1, runIds.size(), "every start sees the same run: " + runIds);

        JsonPath list = api.as("client").queryParam("workflow", workflow).get("/api/v1/runs")
                .then().statusCode(200).extract().jsonPath();
        assertEquals(1, Api.ids(list).size(), list.prettify());
    }

    @Test
    void startingAnUnknownWorkflowIs404() {
        problem(api.startRun(unique("missing"), "{}"), 404);
    }

    @Test
    void aBadStartBodyIs400AndStartsNothing() {
        String workflow = unique("badbody");
        api.createWorkflow(workflow, Api.chain3());

        List<String> bodies = List.of(
                "[1, 2]",
                "\"just a string\"",
                "42",
                "{\"unknown\": 1}",
                "{\"tier\": \"turbo\"}",
                "{\"tier\": 3}",
                "{\"idempotencyKey\": 42}",
                "{\"idempotencyKey\": {\"a\": 1}}",
                "{\"idempotencyKey\": \"\"}",
                "{\"idempotencyKey\": \"event:order-created-7:ship\"}", // reserved for the runs rules start
                "{\"input\": ",
                "not json at all");
        for (String body : bodies) {
            JsonPath problem = problem(api.startRun(workflow, body), 400);
            assertNotNull(problem.getString("detail"), body);
        }

        JsonPath list = api.as("client").queryParam("workflow", workflow).get("/api/v1/runs")
                .then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(), Api.ids(list), "no refused start may create a run");
    }

    @Test
    void getOfAnUnknownRunIs404AndOfAMalformedIdIs400() {
        String unknown = UUID.randomUUID().toString();
        problem(api.run(unknown), 404);
        problem(api.history(unknown), 404);

        problem(api.run("not-a-uuid"), 400);
        problem(api.history("not-a-uuid"), 400);
    }

    @Test
    void aRunKeepsTheRevisionItStartedOn() {
        String workflow = unique("pinned");
        api.createWorkflow(workflow, definition(node("nap", "task", "\"handler\": \"sleep\", \"input\": {\"ms\": 1500}")));
        String runId = api.start(workflow);

        api.updateWorkflow(workflow, definition(task("other", "noop")));
        JsonPath during = api.run(runId).then().statusCode(200).extract().jsonPath();
        assertEquals(1, during.getInt("revision"));
        assertEquals(Set.of("nap"), during.getMap("nodes").keySet());

        JsonPath done = api.awaitTerminal(runId);
        assertEquals("SUCCEEDED", done.getString("status"), done.prettify());
        assertEquals(1, done.getInt("revision"));
        assertEquals(Set.of("nap"), done.getMap("nodes").keySet());
        assertEquals(1500, done.getInt("nodes.nap.output.slept"), done.prettify());

        // A run started now is on revision 2.
        String second = api.start(workflow);
        JsonPath secondRun = api.awaitTerminal(second);
        assertEquals(2, secondRun.getInt("revision"));
        assertEquals(Set.of("other"), secondRun.getMap("nodes").keySet());
        assertEquals("SUCCEEDED", secondRun.getString("status"));
    }

    @Test
    void aFailingTaskIsRetriedThenFailsTheRun() {
        String workflow = unique("failing");
        api.createWorkflow(workflow, definition(node("boom", "task",
                "\"handler\": \"fail\", \"input\": {\"message\": \"kaputt\"}, \"retry\": {\"maxAttempts\": 2}")));
        String runId = api.start(workflow);

        JsonPath run = api.awaitTerminal(runId);

        assertEquals("FAILED", run.getString("status"), run.prettify());
        assertEquals("FAILED", run.getString("nodes.boom.state"), run.prettify());
        assertEquals(2, run.getInt("nodes.boom.attempts"), run.prettify());
        assertNotNull(run.getString("nodes.boom.error"), run.prettify());
        assertTrue(run.getString("nodes.boom.error").contains("kaputt"), run.prettify());

        List<Map<String, Object>> history = api.history(runId).then().statusCode(200).extract().jsonPath().getList("$");
        Map<String, Object> last = history.get(history.size() - 1);
        assertEquals("RUNNING", last.get("from"));
        assertEquals("FAILED", last.get("to"));
        assertNull(last.get("node"));
    }

    private static int indexOf(List<Map<String, Object>> history, String node, String to) {
        for (int i = 0; i < history.size(); i++) {
            if (node.equals(history.get(i).get("node")) && to.equals(history.get(i).get("to"))) {
                return i;
            }
        }
        throw new AssertionError("no transition of " + node + " to " + to + " in " + history);
    }
}
