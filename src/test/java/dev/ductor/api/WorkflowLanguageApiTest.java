package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The workflow language end to end, through HTTP on real PostgreSQL: the shipped samples (an order that charges
 * through an external worker, ships through a child workflow and refunds when the charge fails; a batch that fans
 * out), and what a definition that cannot work gets when it is saved.
 */
@QuarkusTest
@Tag("api")
class WorkflowLanguageApiTest {

    @Inject
    DevTokenIssuer issuer;

    private static String sample(String name) {
        try (InputStream in = WorkflowLanguageApiTest.class.getClassLoader().getResourceAsStream("samples/" + name + ".json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Api withOrderSamples(DevTokenIssuer issuer) {
        Api api = new Api(issuer);
        api.createWorkflow("shipping", sample("shipping"));
        api.createWorkflow("order", sample("order"));
        return api;
    }

    /** The charge task, claimed as an external worker would. */
    private static Map<String, Object> claimCharge(Api api) {
        List<Map<String, Object>> tasks = api.as("worker")
                .body("{\"handlers\":[\"ext:charge\"],\"workerId\":\"payments\",\"max\":1,\"waitSeconds\":10}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$");
        assertEquals(1, tasks.size(), "the charge task: " + tasks);
        return tasks.get(0);
    }

    private static void awaitNode(Api api, String runId, String node, String state) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        String seen = null;
        while (System.nanoTime() < deadline) {
            seen = api.run(runId).path("nodes." + node + ".state");
            if (state.equals(seen)) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        assertEquals(state, seen, "node " + node + " of run " + runId);
    }

    @Test
    void anOrderIsChargedShippedThroughItsChildWorkflowAndItsReceiptReadsTheChargeAndThePayment() {
        Api api = withOrderSamples(issuer);
        String runId = api.start("order", "{\"input\": {\"order\": 7, \"cents\": 1299,"
                + " \"lines\": [{\"sku\": \"A\"}, {\"sku\": \"B\"}, {\"sku\": \"C\"}]}}");

        Map<String, Object> charge = claimCharge(api);
        assertEquals(Map.of("order", 7, "cents", 1299), charge.get("input"), "the charge got its evaluated input");
        api.as("worker").body("{\"leaseToken\":\"" + charge.get("leaseToken") + "\",\"output\":{\"chargeId\":\"ch_1\"}}")
                .post("/api/v1/tasks/{id}/complete", charge.get("taskId")).then().statusCode(200);
        awaitNode(api, runId, "paid", "WAITING");
        api.as("client").body("{\"name\":\"paid\",\"payload\":{\"amount\":1299},\"idempotencyKey\":\"pay-7\"}")
                .post("/api/v1/runs/{id}/signals", runId).then().statusCode(202);

        JsonPath run = api.awaitTerminal(runId);
        assertEquals("SUCCEEDED", run.getString("status"), run.prettify());
        assertEquals("SKIPPED", run.getString("nodes.refund.state"), "nothing failed, so no refund");
        assertEquals(Map.of("order", 7, "charge", "ch_1", "amount", 1299, "tracking", "TRK-7",
                "text", "order 7 paid 1299, charge ch_1"), run.getMap("nodes.receipt.output"));
        assertEquals("SUCCEEDED", run.getString("output.charge"));
        assertNull(run.get("parentRunId"));

        List<Map<String, Object>> children = run.getList("children");
        assertEquals(1, children.size(), "one child run for the one attempt: " + children);
        assertEquals("ship", children.get(0).get("node"));
        assertEquals("shipping", children.get(0).get("workflow"));
        String childId = (String) children.get(0).get("runId");
        JsonPath child = api.run(childId).then().statusCode(200).extract().jsonPath();
        assertEquals(runId, child.getString("parentRunId"));
        assertEquals("SUCCEEDED", child.getString("status"));
        assertEquals(3, child.getList("nodes.pick.items").size());
        assertEquals(List.of(Map.of("sku", "A", "line", 0), Map.of("sku", "B", "line", 1), Map.of("sku", "C", "line", 2)),
                child.getList("nodes.pick.output"), "the fan-out's output is its items' outputs, in order");
        assertEquals(Map.of("tracking", "TRK-7", "picked", 3), run.getMap("nodes.ship.output"), "the child's output");
    }

    @Test
    void aDeclinedChargeIsRefundedTheShippingIsSkippedAndTheHistorySaysWhy() {
        Api api = withOrderSamples(issuer);
        String runId = api.start("order", "{\"input\": {\"order\": 8, \"cents\": 5}}");

        Map<String, Object> charge = claimCharge(api);
        api.as("worker").body("{\"leaseToken\":\"" + charge.get("leaseToken") + "\",\"error\":\"card declined\",\"retryable\":false}")
                .post("/api/v1/tasks/{id}/fail", charge.get("taskId")).then().statusCode(200);

        JsonPath run = api.awaitTerminal(runId);
        assertEquals("SUCCEEDED", run.getString("status"), "the charge was allowed to fail: " + run.prettify());
        assertEquals("FAILED", run.getString("nodes.charge.state"));
        assertEquals(Map.of("order", 8, "reason", "card declined"), run.getMap("nodes.refund.output"));
        for (String node : List.of("paid", "ship", "receipt")) {
            assertEquals("SKIPPED", run.getString("nodes." + node + ".state"), node);
        }
        assertTrue(run.getList("children").isEmpty(), "no child was started");
        List<Map<String, Object>> history = api.history(runId).then().statusCode(200).extract().jsonPath().getList("$");
        assertTrue(history.stream().anyMatch(t -> "paid".equals(t.get("node")) && "SKIPPED".equals(t.get("to"))
                && String.valueOf(t.get("cause")).contains("'charge' failed")), "the history names the cause: " + history);
    }

    @Test
    void aBatchFansOutOverItsLinesAndItsOutputIsEveryResultInOrder() {
        Api api = new Api(issuer);
        api.createWorkflow("batch", sample("batch"));
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 25; i++) {
            lines.append(i == 0 ? "" : ",").append("\"line-").append(i).append('"');
        }
        String runId = api.start("batch", "{\"input\": {\"lines\": [" + lines + "]}}");

        JsonPath run = api.awaitTerminal(runId);
        assertEquals("SUCCEEDED", run.getString("status"), run.prettify());
        assertEquals(25, run.getInt("output.processed"));
        List<Map<String, Object>> results = run.getList("output.results");
        for (int i = 0; i < 25; i++) {
            assertEquals(Map.of("line", "line-" + i, "n", i), results.get(i));
        }
        List<Map<String, Object>> history = api.history(runId).then().statusCode(200).extract().jsonPath().getList("$");
        for (int i = 0; i < 25; i++) {
            String item = "process[" + i + "]";
            assertEquals(1, history.stream().filter(t -> item.equals(t.get("node")) && "SUCCEEDED".equals(t.get("to"))).count(),
                    item + " succeeded exactly once");
        }
    }

    @Test
    void cancellingAParentCancelsItsRunningChild() {
        Api api = new Api(issuer);
        api.createWorkflow("waits", "{\"nodes\": [{\"id\": \"w\", \"type\": \"signal\", \"signal\": \"never\"}]}");
        String parent = api.start(api.define("{\"nodes\": [{\"id\": \"c\", \"type\": \"workflow\", \"workflow\": \"waits\"}]}"));
        String child = awaitChild(api, parent);
        api.as("operator").post("/api/v1/runs/{id}/cancel", parent).then().statusCode(202);
        assertEquals("CANCELLED", api.awaitStatus(child, "CANCELLED"));
        assertEquals("CANCELLED", api.awaitStatus(parent, "CANCELLED"));
    }

    @Test
    void aChildWorkflowThatDoesNotExistFailsItsNodeWithAClearError() {
        Api api = new Api(issuer);
        String runId = api.start(api.define("{\"nodes\": [{\"id\": \"c\", \"type\": \"workflow\", \"workflow\": \"nowhere\"}]}"));
        JsonPath run = api.awaitTerminal(runId);
        assertEquals("FAILED", run.getString("status"));
        assertTrue(run.getString("nodes.c.error").contains("'nowhere' could not start"), run.getString("nodes.c.error"));
    }

    @Test
    void anExpressionThatFailsAtRunTimeFailsItsNodeNamingTheExpression() {
        Api api = new Api(issuer);
        String runId = api.start(api.define("""
                {"nodes": [{"id": "a", "type": "task", "handler": "echo", "input": {"v": 1}},
                           {"id": "b", "type": "task", "handler": "echo", "dependsOn": ["a"],
                            "input": {"x": "${{ nodes.a.output.missing }}"}}]}"""), "{\"input\": {}}");
        JsonPath run = api.awaitTerminal(runId);
        assertEquals("FAILED", run.getString("status"));
        assertEquals("FAILED", run.getString("nodes.b.state"));
        assertTrue(run.getString("nodes.b.error").contains("nodes.a.output.missing"), run.getString("nodes.b.error"));
    }

    @Test
    void aDefinitionWhoseExpressionsCannotWorkIsRefusedNamingTheNodeAndTheField() {
        Api api = new Api(issuer);
        Response refused = api.putWorkflow(Api.unique("bad"), """
                {"nodes": [{"id": "a", "type": "task", "handler": "noop"},
                           {"id": "b", "type": "task", "handler": "noop", "input": {"x": "${{ nodes.a.output }}"}},
                           {"id": "c", "type": "task", "handler": "noop", "dependsOn": ["a"], "when": "nodes.a.output. =="},
                           {"id": "d", "type": "task", "handler": "noop", "input": {"i": "${{ item }}"}}]}""");
        assertEquals(422, refused.statusCode(), refused.asString());
        assertTrue(refused.contentType().startsWith("application/problem+json"));
        String body = refused.asString();
        assertTrue(body.contains("\"b\"") && body.contains("not among"), "b reads a node it does not depend on: " + body);
        assertTrue(body.contains("\"c\"") && body.contains("when"), "c's when does not compile: " + body);
        assertTrue(body.contains("\"d\"") && body.contains("item"), "d uses item outside a fan-out: " + body);
    }

    private static String awaitChild(Api api, String parent) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<Map<String, Object>> children = api.run(parent).jsonPath().getList("children");
            if (children != null && !children.isEmpty()) {
                return (String) children.get(0).get("runId");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        throw new AssertionError("no child run for " + parent);
    }
}
