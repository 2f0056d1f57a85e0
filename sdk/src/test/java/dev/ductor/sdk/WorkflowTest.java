package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.ductor.sdk.Workflow.expr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The builder writes the definition documents of the contract (§4 and §7), and refuses what it can see is wrong. */
@Tag("unit")
class WorkflowTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Map.of has no order; the contract's example is easier to compare with its fields in order. */
    private static Map<String, Object> map(Object... pairs) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], pairs[i + 1]);
        }
        return map;
    }

    @Test
    void aRetentionIsWrittenAsAnIsoDurationBesideTheNodes() {
        Workflow workflow = Workflow.named("audit").retention(java.time.Duration.ofDays(7)).task("a", "noop");

        assertEquals("PT168H", workflow.toJson().get("retention").asText());
        assertFalse(Workflow.named("plain").task("a", "noop").toJson().has("retention"), "no retention: the server's default");
        assertThrows(IllegalArgumentException.class, () -> Workflow.named("zero").retention(java.time.Duration.ZERO));
    }

    @Test
    void theContractsOrderExampleBuiltInJava() {
        JsonNode contract = json("""
                { "name": "order", "output": {"receipt": "${{ nodes.receipt.output }}"}, "nodes": [
                  {"id": "charge", "type": "task", "handler": "ext:charge",
                   "input": {"order": "${{ input.orderId }}", "cents": "${{ input.cents }}"}, "allowFailure": true},
                  {"id": "ship", "type": "workflow", "workflow": "shipping", "dependsOn": ["charge"],
                   "when": "nodes.charge.state == 'SUCCEEDED'", "input": {"order": "${{ input.orderId }}"}},
                  {"id": "refund", "type": "task", "handler": "http", "dependsOn": ["charge"], "runIf": "anyFailed",
                   "input": {"url": "http://payments/refund/${{ input.orderId }}", "method": "POST"}},
                  {"id": "lines", "type": "task", "handler": "ext:pick", "dependsOn": ["ship"],
                   "forEach": "input.lines", "maxConcurrency": 10, "input": {"sku": "${{ item.sku }}", "n": "${{ index }}"}},
                  {"id": "receipt", "type": "task", "handler": "echo", "dependsOn": ["lines"],
                   "input": {"charge": "${{ nodes.charge.output.chargeId }}", "picked": "${{ size(nodes.lines.output) }}"}} ] }""");

        Workflow order = Workflow.named("order")
                .task("charge", "ext:charge", t -> t.input(map("order", expr("input.orderId"), "cents", expr("input.cents"))).allowFailure())
                .workflow("ship", "shipping", w -> w.dependsOn("charge").when("nodes.charge.state == 'SUCCEEDED'")
                        .input(Map.of("order", expr("input.orderId"))))
                .task("refund", "http", t -> t.dependsOn("charge").runIf(RunIf.ANY_FAILED)
                        .input(map("url", "http://payments/refund/${{ input.orderId }}", "method", "POST")))
                .task("lines", "ext:pick", t -> t.dependsOn("ship").forEach("input.lines").maxConcurrency(10)
                        .input(map("sku", expr("item.sku"), "n", expr("index"))))
                .task("receipt", "echo", t -> t.dependsOn("lines")
                        .input(map("charge", expr("nodes.charge.output.chargeId"), "picked", expr("size(nodes.lines.output)"))))
                .output(Map.of("receipt", expr("nodes.receipt.output")));

        assertEquals(contract, order.toJson());
        assertEquals(contract.toString(), order.toJson().toString(), "and in the contract's field order");
    }

    @Test
    void everyOptionOfEveryNodeType() {
        record Charge(String order, int cents) {
        }
        Workflow all = Workflow.named("all")
                .signal("paid", "paid", s -> s.timeout(Duration.ofHours(1)))
                .timer("cool", Duration.ofSeconds(5), t -> t.dependsOn("paid"))
                .task("charge", "ext:charge", t -> t.dependsOn("paid", "cool").pool("payments")
                        .retry(3, Duration.ofSeconds(2)).input(new Charge("A-1", 250)))
                .workflow("ship", "shipping", w -> w.dependsOn("charge").revision(4).runIf(RunIf.NONE_FAILED)
                        .input(json("{\"order\": \"${{ input.order }}\"}")))
                .task("tidy", "noop", t -> t.dependsOn("ship").runIf(RunIf.ALL_DONE).allowFailure(false).when("true"));
        assertEquals(json("""
                {"name": "all", "nodes": [
                  {"id": "paid", "type": "signal", "signal": "paid", "timeout": "PT1H"},
                  {"id": "cool", "type": "timer", "duration": "PT5S", "dependsOn": ["paid"]},
                  {"id": "charge", "type": "task", "handler": "ext:charge", "pool": "payments",
                   "retry": {"maxAttempts": 3, "backoff": "PT2S"}, "dependsOn": ["paid", "cool"], "input": {"order": "A-1", "cents": 250}},
                  {"id": "ship", "type": "workflow", "workflow": "shipping", "revision": 4, "runIf": "noneFailed",
                   "dependsOn": ["charge"], "input": {"order": "${{ input.order }}"}},
                  {"id": "tidy", "type": "task", "handler": "noop", "runIf": "allDone", "allowFailure": false, "when": "true",
                   "dependsOn": ["ship"]}]}"""), all.toJson());
        assertEquals(List.of("allSucceeded", "noneFailed", "anyFailed", "allDone"),
                java.util.Arrays.stream(RunIf.values()).map(RunIf::wireName).toList());
    }

    @Test
    void aTaskWithoutInputGetsTheRunsInputSoNoneIsWritten() {
        JsonNode node = Workflow.named("w").task("a", "echo").toJson().path("nodes").get(0);
        assertFalse(node.has("input"));
        assertNull(Workflow.named("w").task("a", "echo").toJson().get("output"), "no output: the map of node outputs");
        assertTrue(Workflow.named("w").task("a", "echo", t -> t.input(null)).toJson().path("nodes").get(0).path("input").isNull());
    }

    @Test
    void whatTheBuilderCanSeeIsWrongIsRefusedAtOnce() {
        assertThrows(IllegalArgumentException.class, () -> Workflow.named("w").task("a", "noop").task("a", "echo"), "duplicate id");
        assertThrows(IllegalStateException.class, () -> Workflow.named("w").task("a", "noop", t -> t.dependsOn("ghost")).toJson());
        assertThrows(IllegalStateException.class, () -> Workflow.named("w").signal("s", "go", s -> s.input(Map.of())));
        assertThrows(IllegalStateException.class, () -> Workflow.named("w").workflow("c", "child", s -> s.forEach("input.xs")));
        assertThrows(IllegalStateException.class, () -> Workflow.named("w").task("t", "echo", s -> s.revision(2)));
        assertThrows(IllegalStateException.class, () -> Workflow.named("w").task("t", "echo", s -> s.timeout(Duration.ofSeconds(1))));
        assertThrows(IllegalStateException.class, () -> Workflow.named("w").task("t", "echo", s -> s.maxConcurrency(2)).toJson());
        assertThrows(IllegalArgumentException.class, () -> Workflow.named("w").task("t", "echo", s -> s.forEach("x").maxConcurrency(0)));
        assertThrows(IllegalArgumentException.class, () -> Workflow.named("w").timer("t", Duration.ofSeconds(-1)));
        assertThrows(IllegalStateException.class, () -> Workflow.named("w").toJson(), "no nodes");
        assertEquals("${{ input.x }}", expr("input.x"));
    }
}
