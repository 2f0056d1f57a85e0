package dev.ductor.api;

import dev.ductor.config.DuctorConfig;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import dev.ductor.support.FastPaths;
import dev.ductor.support.Fixtures;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code POST /tasks/report}: several results in one request, each fenced on its own (a lost lease is that result's
 * outcome), the next steps leased with the answer; a malformed batch changes nothing.
 */
@QuarkusTest
@Tag("api")
class TaskReportBatchApiTest {

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    @Inject
    DuctorConfig config;

    @Test
    void aBatchRecordsEachResultOnItsOwnAndBringsTheRunsNextSteps() throws Exception {
        Api api = new Api(issuer);
        String first = "ext:batch-a-" + UUID.randomUUID().toString().substring(0, 8);
        String second = "ext:batch-b-" + UUID.randomUUID().toString().substring(0, 8);
        String workflow = twoSteps(api, first, second);
        List<String> runs = List.of(api.start(workflow), api.start(workflow), api.start(workflow));
        List<Map<String, Object>> claimed = claim(api, first, 3);
        assertEquals(3, claimed.size(), "the three first steps: " + claimed);

        // two results with their tokens, the third with a token that does not hold its task
        String body = "{\"results\": ["
                + result(claimed.get(0), (String) claimed.get(0).get("leaseToken"), "{\"n\": 0}") + ","
                + result(claimed.get(1), (String) claimed.get(1).get("leaseToken"), "{\"n\": 1}") + ","
                + result(claimed.get(2), UUID.randomUUID().toString(), "{\"n\": 2}")
                + "], \"next\": {\"handlers\": [\"" + second + "\"], \"max\": 5}}";
        JsonPath answer = api.as("worker").body(body).post("/api/v1/tasks/report").then().statusCode(200).extract().jsonPath();

        assertEquals(List.of("recorded", "recorded", "lease-lost"), answer.getList("results.status"));
        assertEquals(claimed.stream().map(t -> t.get("taskId")).toList(), answer.getList("results.taskId"), "in the batch's order");
        Set<Object> reportedRuns = Set.of(claimed.get(0).get("runId"), claimed.get(1).get("runId"));
        List<Map<String, Object>> next = answer.getList("next");
        if (!FastPaths.reportsLeaseNext(config)) {
            assertEquals(List.of(), next, "the plain paths lease nothing with the answer: the next steps are queued");
            for (Object run : reportedRuns) {
                assertEquals("RUNNING", api.awaitNode((String) run, "b", "RUNNING"));
            }
            next = claim(api, second, 5);
        }
        assertEquals(reportedRuns, next.stream().map(t -> t.get("runId")).collect(Collectors.toSet()),
                "the two recorded runs' second steps, leased with the answer (or claimed): " + next);
        assertTrue(next.stream().allMatch(t -> "b".equals(t.get("node")) && second.equals(t.get("handler"))));

        String refused = (String) claimed.get(2).get("runId");
        assertEquals("RUNNING", api.run(refused).path("nodes.a.state"), "the refused result changed nothing");
        for (Map<String, Object> t : next) {
            assertEquals("SUCCEEDED", api.run((String) t.get("runId")).path("nodes.a.state"));
        }

        // the leased second steps, reported in one batch, end their runs
        List<String> results = new ArrayList<>();
        for (Map<String, Object> t : next) {
            results.add(result(t, (String) t.get("leaseToken"), "{}"));
        }
        JsonPath done = api.as("worker").body("{\"results\": [" + String.join(",", results) + "]}")
                .post("/api/v1/tasks/report").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("recorded", "recorded"), done.getList("results.status"));
        assertEquals(List.of(), done.getList("next"), "no next asked for, none leased");
        for (Map<String, Object> t : next) {
            assertEquals("SUCCEEDED", api.awaitStatus((String) t.get("runId"), "SUCCEEDED"));
        }
        assertTrue(runs.containsAll(reportedRuns));
    }

    @Test
    void aFailureInABatchFollowsTheRetryPolicyAndARepeatIsHarmless() throws Exception {
        Api api = new Api(issuer);
        String handler = "ext:batch-fail-" + UUID.randomUUID().toString().substring(0, 8);
        String workflow = api.define("{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"" + handler + "\","
                + "\"retry\":{\"maxAttempts\":2}}]}");
        String runId = api.start(workflow);
        Map<String, Object> task = claim(api, handler, 1).get(0);
        String failure = "{\"results\": [{\"taskId\": \"" + task.get("taskId") + "\", \"leaseToken\": \"" + task.get("leaseToken")
                + "\", \"error\": \"card declined\", \"retryable\": true}]}";
        assertEquals(List.of("recorded"), api.as("worker").body(failure).post("/api/v1/tasks/report").then().statusCode(200)
                .extract().jsonPath().getList("results.status"));
        assertEquals(List.of("recorded"), api.as("worker").body(failure).post("/api/v1/tasks/report").then().statusCode(200)
                .extract().jsonPath().getList("results.status"), "the same report again: applied once, answered as recorded");
        Map<String, Object> retry = claim(api, handler, 1).get(0);
        assertEquals(2, retry.get("attempt"), "one attempt spent on the failure, not two");
        assertEquals(runId, retry.get("runId"));
    }

    @Test
    void aMalformedBatchIsRefusedWholeAndChangesNothing() throws Exception {
        Api api = new Api(issuer);
        String handler = "ext:batch-bad-" + UUID.randomUUID().toString().substring(0, 8);
        String runId = api.start(api.define("{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"" + handler + "\"}]}"));
        Map<String, Object> task = claim(api, handler, 1).get(0);
        long version = fixtures.version(UUID.fromString(runId));
        String good = result(task, (String) task.get("leaseToken"), "{}");

        for (String bad : List.of(
                "{\"results\": [" + good + ", {\"taskId\": \"x1\", \"leaseToken\": \"" + UUID.randomUUID() + "\"}]}",
                "{\"results\": [" + good + ", " + good + "]}",
                "{\"results\": []}",
                "{\"results\": [" + good + "], \"next\": {\"handlers\": [\"noop\"]}}")) {
            var response = api.as("worker").body(bad).post("/api/v1/tasks/report");
            assertEquals(400, response.statusCode(), bad + " -> " + response.asString());
            assertTrue(response.contentType().startsWith("application/problem+json"));
        }
        assertEquals(version, fixtures.version(UUID.fromString(runId)), "no result of a refused batch was applied");
        assertEquals("RUNNING", api.run(runId).path("nodes.a.state"));
    }

    private static String twoSteps(Api api, String first, String second) {
        return api.define("{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"" + first + "\"},"
                + "{\"id\":\"b\",\"type\":\"task\",\"handler\":\"" + second + "\",\"dependsOn\":[\"a\"]}]}");
    }

    private static String result(Map<String, Object> task, String token, String output) {
        return "{\"taskId\": \"" + task.get("taskId") + "\", \"leaseToken\": \"" + token + "\", \"output\": " + output + "}";
    }

    private static List<Map<String, Object>> claim(Api api, String handler, int max) {
        return api.as("worker")
                .body("{\"handlers\":[\"" + handler + "\"],\"workerId\":\"batch\",\"max\":" + max + ",\"waitSeconds\":10}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$");
    }
}
