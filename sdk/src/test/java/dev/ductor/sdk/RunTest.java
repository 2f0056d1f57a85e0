package dev.ductor.sdk;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The run's fields of the workflow language, read from a GET /runs/{id} body. */
@Tag("unit")
class RunTest {

    @Test
    void parentChildrenSkippedNodesAndAFanOutsItems() throws Exception {
        Run run = new Run(new ObjectMapper().readTree("""
                {"runId": "r1", "workflow": "order", "status": "RUNNING", "parentRunId": "p0", "nodes": {
                  "charge": {"state": "SUCCEEDED", "attempts": 1, "output": {"chargeId": "ch_1"}, "input": {"order": "A-1"}},
                  "refund": {"state": "SKIPPED", "attempts": 0},
                  "audit": {"state": "SKIPPED", "attempts": 0, "skippedBy": "operator"},
                  "ship": {"state": "RUNNING", "attempts": 2},
                  "lines": {"state": "RUNNING", "attempts": 0, "items": [
                    {"state": "SUCCEEDED", "attempts": 1, "output": 1}, {"state": "FAILED", "attempts": 2, "error": "out of stock"},
                    {"state": "RUNNING", "attempts": 1}]}},
                 "children": [{"runId": "c1", "node": "ship", "attempt": 1, "workflow": "shipping", "status": "FAILED"},
                              {"runId": "c2", "node": "ship", "attempt": 2, "workflow": "shipping", "status": "RUNNING"}]}"""));
        assertEquals("p0", run.parentRunId());
        assertEquals(2, run.children().size());
        assertEquals("c2", run.child("ship").orElseThrow().runId(), "the latest attempt's child");
        assertTrue(run.child("charge").isEmpty());
        assertEquals("A-1", run.nodeView("charge").input().path("order").asText());
        assertTrue(run.nodeView("refund").isSkipped());
        assertNull(run.nodeView("refund").skippedBy());
        assertEquals("operator", run.nodeView("audit").skippedBy());
        Run.Node lines = run.nodeView("lines");
        assertTrue(lines.isFanOut());
        assertEquals("1/3", lines.progress());
        assertEquals("out of stock", lines.items().get(1).error());
        assertFalse(run.nodeView("ship").isFanOut());
        assertNull(run.nodeView("ship").progress());
        assertNull(run.nodeView("ghost"));
        assertTrue(Run.NODE_STATES.contains("SKIPPED"));

        Run topLevel = new Run(new ObjectMapper().readTree("{\"runId\": \"r2\", \"parentRunId\": null, \"nodes\": {}}"));
        assertNull(topLevel.parentRunId());
        assertEquals(List.of(), topLevel.children());
    }
}
