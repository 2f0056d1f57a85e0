package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.test.junit.QuarkusTest;
import dev.ductor.support.Api;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The examples of META-INF/openapi.yaml, as {@code /q/openapi} serves them, have the shape of what the API really
 * answers: the same field names, the same JSON types, and a field left out where the API leaves it out. Each real
 * response is produced from the example's own request (the {@code order} workflow, the {@code start} body) in a fresh
 * tenant. The content of payloads (input, output, payload, the rejected body) and of tags is the caller's, so only its type counts.
 */
@QuarkusTest
@Tag("api")
class ApiExamplesMatchTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> PAYLOADS = Set.of("input", "output", "payload", "rejected", "tags");

    @Inject
    DevTokenIssuer issuer;

    @Inject
    dev.ductor.aggregate.schedule.ScheduleFirer firer;

    @Inject
    java.time.Clock clock;

    Api api;
    JsonNode examples;

    @BeforeEach
    void setUp() throws Exception {
        api = new Api(issuer);
        // The named examples as META-INF/openapi.yaml defines them: /q/openapi has each written out in its operations
        // (api/ApiDocumentation), not under components.
        try (InputStream yaml = getClass().getClassLoader().getResourceAsStream("META-INF/openapi.yaml")) {
            examples = new ObjectMapper(new YAMLFactory()).readTree(yaml)
                    .path("components").path("examples");
        }
    }

    @Test
    void workflowRunRunListAndHistoryExamplesHaveTheShapeOfRealAnswers() throws Exception {
        api.createWorkflow("order", example("workflow-put").toString());
        matches("workflow", api.getWorkflow("order"), 200);
        matches("workflow-list", api.as("client").get("/api/v1/workflows"), 200);
        // The child workflow the example's "pack" node starts: its output is a map of node outputs, as the example's.
        api.createWorkflow("packing", "{\"nodes\": [{\"id\": \"box\", \"type\": \"task\", \"handler\": \"echo\"}]}");

        Response started = api.startRun("order", example("start").toString());
        matches("run-started", started, 201);
        String runId = started.jsonPath().getString("runId");
        String second = api.start("order", "{\"input\": {\"orderId\": \"A-1002\", \"amount\": 7.5, \"gift\": false,"
                + " \"lines\": [{\"sku\": \"D-3\"}]}, \"idempotencyKey\": \"order-A-1002\", \"tier\": \"interactive\","
                + " \"tags\": {\"customer\": \"c-43\"}}");
        // The examples show a run waiting for its signal: reserve SUCCEEDED, the gift branch SKIPPED, the fan-out pick
        // and the child run of pack SUCCEEDED, paid WAITING. Both runs are compared only once there, or the page would
        // race the worker.
        awaitPaidWaiting(runId);
        awaitPaidWaiting(second);
        // Filtered by workflow: the newest run of the tenant is a child run of packing.
        matches("run-page", api.as("client").queryParam("workflow", "order").queryParam("limit", 1).get("/api/v1/runs"), 200);
        matches("run", api.run(runId), 200);
        matches("history", api.history(runId), 200);
    }

    @Test
    void problemExamplesHaveTheShapeOfRealProblems() throws Exception {
        String workflow = "order";
        api.createWorkflow(workflow, example("workflow-put").toString());
        matches("bad-request", api.startRun(workflow, "{\"inputs\": {}}"), 400);
        matches("not-found-run", api.run("0b6f2c1e-8d4a-4f3e-9c71-2a5e6d8f9b10"), 404);
        matches("not-found-workflow", api.getWorkflow(Api.unique("none")), 404);
        matches("precondition-workflow", api.putWorkflow(workflow, example("workflow-put").toString()), 428);
        api.updateWorkflow(workflow, example("workflow-put").toString());
        matches("conflict-workflow", api.putWorkflow(workflow, example("workflow-put").toString(), "\"0\""), 409);
        matches("unauthorized", RestAssured.given().get("/api/v1/runs"), 401);
        matches("forbidden", api.as("worker").body(example("workflow-put").toString()).put("/api/v1/workflows/{n}", workflow), 403);
    }

    @Test
    void scheduleExamplesHaveTheShapeOfRealAnswers() throws Exception {
        api.createWorkflow("report", "{\"nodes\": [{\"id\": \"gate\", \"type\": \"signal\", \"signal\": \"go\"}]}");
        String path = "/api/v1/schedules/nightly-report";
        matches("schedule-invalid", api.as("admin").body(((com.fasterxml.jackson.databind.node.ObjectNode) example("schedule-put")
                .deepCopy()).put("cron", "*/5 * * * *").toString()).put(path), 422);
        matches("not-found-schedule", api.as("client").get(path), 404);
        assertEquals(201, api.as("admin").body(example("schedule-put").toString()).put(path).statusCode());
        firer.runOnce(clock.instant().plus(java.time.Duration.ofMinutes(6))); // so that it shows its last fire
        matches("schedule", api.as("client").get(path), 200);
        matches("schedule-list", api.as("client").get("/api/v1/schedules"), 200);
        matches("precondition-schedule", api.as("admin").body(example("schedule-put").toString()).put(path), 428);
        matches("conflict-schedule", api.as("admin").header("If-Match", "\"7\"").body(example("schedule-put").toString()).put(path),
                409);
        String paused = ((com.fasterxml.jackson.databind.node.ObjectNode) example("schedule-put").deepCopy()).put("paused", true).toString();
        assertEquals(200, api.as("admin").header("If-Match", "\"1\"").body(paused).put(path).statusCode());
    }

    @Test
    void resetExamplesHaveTheShapeOfRealAnswers() throws Exception {
        String workflow = "invoice";
        String broken = "{\"nodes\": [{\"id\": \"load\", \"type\": \"task\", \"handler\": \"echo\"}, {\"id\": \"charge\","
                + " \"type\": \"task\", \"handler\": \"fail\", \"dependsOn\": [\"load\"], \"input\": {\"message\": \"bug\", \"retryable\": false}}]}";
        api.createWorkflow(workflow, broken);
        String runId = api.start(workflow, "{\"input\": {\"invoice\": \"I-7\"}}");
        assertEquals("FAILED", api.awaitTerminal(runId).getString("status"));
        api.updateWorkflow(workflow, broken.replace("\"fail\"", "\"echo\""));
        String etag = api.run(runId).header("ETag");
        matches("conflict-run-reset", reset(runId, "\"0\"", example("reset-failed-only")), 409);
        matches("reset-refused", reset(runId, etag, "{\"fromNodes\": [\"lod\"]}"), 409);
        matches("run-reset", reset(runId, etag, example("reset-failed-only").toString()), 200);
        matches("precondition-run", reset(runId, null, example("reset-from-nodes").toString()), 428);
    }

    private Response reset(String runId, String etag, Object body) {
        var request = api.as("operator").body(body.toString());
        if (etag != null) {
            request = request.header("If-Match", etag);
        }
        return request.post("/api/v1/runs/{id}/reset", runId);
    }

    private void awaitPaidWaiting(String runId) {
        long deadline = System.currentTimeMillis() + 20_000;
        while (!"WAITING".equals(api.run(runId).jsonPath().getString("nodes.paid.state"))) {
            assertTrue(System.currentTimeMillis() < deadline, () -> "the run did not reach paid: " + api.run(runId).asString());
            Api.sleep(100);
        }
    }

    private JsonNode example(String name) {
        JsonNode value = examples.path(name).path("value");
        assertTrue(value.isContainerNode(), "META-INF/openapi.yaml has no example " + name);
        return value;
    }

    private void matches(String name, Response response, int status) throws Exception {
        assertEquals(status, response.statusCode(), response::asString);
        List<String> differences = new ArrayList<>();
        compare(example(name), MAPPER.readTree(response.asString()), "", differences);
        assertTrue(differences.isEmpty(), () -> "example '" + name + "' differs from the real answer " + response.asString()
                + ":\n  " + String.join("\n  ", differences));
    }

    /** Same JSON type everywhere; objects with the same field names; each array element like some element of the other. */
    private static void compare(JsonNode example, JsonNode real, String at, List<String> differences) {
        if (example.getNodeType() != real.getNodeType()) {
            differences.add(at + ": example is " + example.getNodeType() + ", the API sends " + real.getNodeType());
            return;
        }
        String field = at.substring(at.lastIndexOf('.') + 1);
        if (PAYLOADS.contains(field)) {
            return;
        }
        if (example.isObject()) {
            Set<String> exampleFields = names(example);
            Set<String> realFields = names(real);
            if (!exampleFields.equals(realFields)) {
                differences.add(at + ": example has fields " + exampleFields + ", the API sends " + realFields);
                return;
            }
            exampleFields.forEach(name -> compare(example.get(name), real.get(name), at + "." + name, differences));
        } else if (example.isArray()) {
            for (JsonNode element : real) {
                if (!likeSome(element, example)) {
                    differences.add(at + "[]: the API sends " + element + ", unlike every element of the example");
                }
            }
            for (JsonNode element : example) {
                if (!likeSome(element, real)) {
                    differences.add(at + "[]: the example shows " + element + ", unlike every element the API sends");
                }
            }
        }
    }

    private static boolean likeSome(JsonNode element, JsonNode array) {
        for (JsonNode other : array) {
            List<String> differences = new ArrayList<>();
            compare(element, other, "", differences);
            if (differences.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private static Set<String> names(JsonNode object) {
        Set<String> names = new TreeSet<>();
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
