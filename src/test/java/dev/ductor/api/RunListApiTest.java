package dev.ductor.api;

import dev.ductor.support.Api;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
class RunListApiTest {

    @Inject
    DevTokenIssuer issuer;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
    }

    @Test
    void theListFiltersByWorkflowAndStatus() {
        String workflow = unique("filtered");
        String otherWorkflow = unique("other");
        api.createWorkflow(otherWorkflow, definition(task("x", "noop")));
        String otherRun = api.start(otherWorkflow);

        api.createWorkflow(workflow, definition(task("x", "noop")));
        Set<String> succeeded = Set.of(api.start(workflow), api.start(workflow));
        succeeded.forEach(api::awaitTerminal);

        api.updateWorkflow(workflow, definition(node("x", "task", "\"handler\": \"fail\", \"input\": {\"retryable\": false}")));
        String failed = api.start(workflow);
        assertEquals("FAILED", api.awaitTerminal(failed).getString("status"));

        api.updateWorkflow(workflow, definition(node("wait", "signal", "\"signal\": \"never-sent\"")));
        String running = api.start(workflow);

        assertEquals(succeeded, new HashSet<>(list("workflow", workflow, "status", "SUCCEEDED")));
        assertEquals(List.of(failed), list("workflow", workflow, "status", "FAILED"));
        assertEquals(List.of(running), list("workflow", workflow, "status", "RUNNING"));
        assertEquals(List.of(), list("workflow", workflow, "status", "CANCELLED"));

        List<String> all = list("workflow", workflow);
        assertEquals(4, all.size(), all::toString);
        assertFalse(all.contains(otherRun));
        assertEquals(List.of(otherRun), list("workflow", otherWorkflow));

        List<String> everything = list();
        assertTrue(everything.containsAll(all) && everything.contains(otherRun), everything::toString);
        assertEquals(5, everything.size(), "a fresh tenant sees only its own runs: " + everything);

        JsonPath page = api.as("client").queryParam("workflow", workflow).queryParam("status", "SUCCEEDED")
                .get("/api/v1/runs").then().statusCode(200).extract().jsonPath();
        assertTrue(page.getList("items.status").stream().allMatch("SUCCEEDED"::equals));
        assertTrue(page.getList("items.workflow").stream().allMatch(workflow::equals));
        assertNull(page.get("nextCursor"));
    }

    @Test
    void limitAndCursorPaginateWithoutOverlapOrGaps() {
        String workflow = unique("paged");
        api.createWorkflow(workflow, definition(task("x", "noop")));
        Set<String> started = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            started.add(api.start(workflow));
        }

        List<String> seen = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        List<Instant> createdAt = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            var request = api.as("operator").queryParam("workflow", workflow).queryParam("limit", 2);
            if (cursor != null) {
                request = request.queryParam("cursor", cursor);
            }
            JsonPath page = request.get("/api/v1/runs").then().statusCode(200).extract().jsonPath();
            List<String> ids = Api.ids(page);
            sizes.add(ids.size());
            seen.addAll(ids);
            page.getList("items.createdAt", String.class).forEach(t -> createdAt.add(Instant.parse(t)));
            cursor = page.getString("nextCursor");
            pages++;
            assertTrue(pages <= 5, "pagination does not end: " + seen);
        } while (cursor != null);

        assertEquals(List.of(2, 2, 1), sizes);
        assertEquals(5, seen.size());
        assertEquals(started, new HashSet<>(seen), "every run exactly once");
        for (int i = 1; i < createdAt.size(); i++) {
            assertFalse(createdAt.get(i).isAfter(createdAt.get(i - 1)), "newest first: " + createdAt);
        }
    }

    @Test
    void anExactPageHasNoNextCursor() {
        String workflow = unique("exact");
        api.createWorkflow(workflow, definition(task("x", "noop")));
        api.start(workflow);
        api.start(workflow);

        JsonPath page = api.as("client").queryParam("workflow", workflow).queryParam("limit", 2)
                .get("/api/v1/runs").then().statusCode(200).extract().jsonPath();

        assertEquals(2, Api.ids(page).size());
        assertNull(page.get("nextCursor"));
    }

    @Test
    void listItemsAreSummariesWithoutPayloads() {
        String workflow = unique("views");
        api.createWorkflow(workflow, Api.chain3());
        String runId = api.start(workflow, "{\"input\": {\"secret\": \"s3cr3t\"}, \"idempotencyKey\": \"k-views\"}");
        api.awaitTerminal(runId);

        JsonPath page = api.as("client").queryParam("workflow", workflow).get("/api/v1/runs")
                .then().statusCode(200).extract().jsonPath();

        Map<String, Object> item = page.getMap("items[0]");
        assertEquals(runId, item.get("runId"));
        assertEquals(workflow, item.get("workflow"));
        assertEquals(1, item.get("revision"));
        assertEquals("SUCCEEDED", item.get("status"));
        assertEquals("standard", item.get("tier"));
        assertEquals("k-views", item.get("idempotencyKey"));
        assertNotNull(item.get("version"));
        assertNotNull(item.get("createdAt"));
        assertNotNull(item.get("updatedAt"));
        assertFalse(item.containsKey("input"), item::toString);
        assertFalse(item.containsKey("output"), item::toString);
        Map<String, Map<String, Object>> nodes = page.getMap("items[0].nodes");
        assertEquals(List.of("a", "b", "c"), List.copyOf(nodes.keySet()), "in the definition's order: " + nodes);
        nodes.forEach((id, node) -> assertEquals(Map.of("state", "SUCCEEDED", "attempts", 1), node, id));
    }

    @Test
    void aPageOfRunsWithLargeInputsStaysSmall() {
        String workflow = unique("large");
        api.createWorkflow(workflow, definition(node("wait", "signal", "\"signal\": \"never-sent\"")));
        String big = "x".repeat(200 * 1024);
        for (int i = 0; i < 3; i++) {
            api.start(workflow, "{\"input\": {\"blob\": \"" + big + "\"}}");
        }
        String body = api.as("client").queryParam("workflow", workflow).get("/api/v1/runs")
                .then().statusCode(200).extract().asString();

        assertEquals(3, Api.ids(JsonPath.from(body)).size(), body);
        assertTrue(body.length() < 2_000, "three summaries of runs with 200 KiB inputs: " + body.length() + " bytes");
        assertFalse(body.contains("xxxx"), "no input in the list");
        assertTrue(api.run(Api.ids(JsonPath.from(body)).get(0)).asString().contains(big), "the full run still has it");
    }

    @Test
    void badFiltersAre400() {
        problem(api.as("client").queryParam("status", "BOGUS").get("/api/v1/runs"), 400);
        problem(api.as("client").queryParam("limit", 0).get("/api/v1/runs"), 400);
        problem(api.as("client").queryParam("limit", -1).get("/api/v1/runs"), 400);
        problem(api.as("client").queryParam("limit", 201).get("/api/v1/runs"), 400);
        problem(api.as("client").queryParam("limit", 1000).get("/api/v1/runs"), 400);
        problem(api.as("client").queryParam("limit", "ten").get("/api/v1/runs"), 400);
        problem(api.as("client").queryParam("cursor", "garbage").get("/api/v1/runs"), 400);
        problem(api.as("client").queryParam("cursor", "!!!not-base64!!!").get("/api/v1/runs"), 400);
    }

    @Test
    void theLimitBoundsAreAccepted() {
        api.as("client").queryParam("limit", 1).get("/api/v1/runs").then().statusCode(200);
        api.as("client").queryParam("limit", 200).get("/api/v1/runs").then().statusCode(200);
    }

    private List<String> list(String... query) {
        var request = api.as("client");
        for (int i = 0; i < query.length; i += 2) {
            request = request.queryParam(query[i], query[i + 1]);
        }
        JsonPath page = request.get("/api/v1/runs").then().statusCode(200).extract().jsonPath();
        return Api.ids(page);
    }
}
