package dev.ductor.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.ductor.config.JsonCodec;
import dev.ductor.run.core.NodeState;
import dev.ductor.run.core.NodeStatus;
import dev.ductor.workflow.model.DefinitionParser;
import dev.ductor.workflow.model.WorkflowDefinition;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The node_states column through the application's own ObjectMapper: what is written reads back the same. */
@QuarkusTest
@Tag("db")
class NodeStatesCodecTest {

    @Inject NodeStatesCodec codec;
    @Inject JsonCodec json;

    private WorkflowDefinition definition() {
        return new DefinitionParser(h -> true).parse("wf", tree("""
            {"name": "wf", "nodes": [
              {"id": "a", "type": "task", "handler": "noop"},
              {"id": "b", "type": "task", "handler": "noop", "dependsOn": ["a"]},
              {"id": "c", "type": "task", "handler": "noop", "dependsOn": ["b"]}]}"""));
    }

    @Test
    void whatIsWrittenReadsBackInDefinitionOrder() {
        Map<String, NodeState> nodes = new LinkedHashMap<>();
        nodes.put("c", NodeState.pending());
        nodes.put("a", new NodeState(NodeStatus.SUCCEEDED, 1,
                tree("{\"exact\": 0.1000000000000000055511151231257827, \"big\": 1e400, \"s\": \"\\u00e9\\\"\", \"list\": [1, null]}"), null));
        nodes.put("b", new NodeState(NodeStatus.FAILED, 3, NullNode.getInstance(), "boom \"quoted\"\nline", 2));

        Map<String, NodeState> back = codec.read(codec.write(nodes), definition());

        assertEquals(List.of("a", "b", "c"), List.copyOf(back.keySet()));
        assertEquals(nodes.get("a"), back.get("a"));
        assertEquals(nodes.get("b"), back.get("b"));
        assertEquals(nodes.get("c"), back.get("c"));
    }

    @Test
    void readsTheFormJsonbHandsBack() {
        // jsonb reorders keys and adds spaces; unknown fields are skipped, as the tree reader did.
        String stored = "{\"b\": {\"state\": \"RUNNING\", \"attempts\": 2, \"later\": {\"x\": [1, 2]}}, "
                + "\"c\": {\"attempts\": 0, \"state\": \"PENDING\"}, "
                + "\"a\": {\"error\": null, \"output\": {\"n\": 1}, \"state\": \"SUCCEEDED\", \"attempts\": 1}}";

        Map<String, NodeState> back = codec.read(stored, definition());

        assertEquals(new NodeState(NodeStatus.SUCCEEDED, 1, tree("{\"n\": 1}"), "null"), back.get("a"));
        assertEquals(new NodeState(NodeStatus.RUNNING, 2, null, null), back.get("b"));
        assertEquals(NodeState.pending(), back.get("c"));
    }

    @Test
    void aMissingNodeOrFieldIsRefused() {
        assertThrows(IllegalStateException.class, () -> codec.read(
                "{\"a\": {\"state\": \"PENDING\", \"attempts\": 0}, \"b\": {\"state\": \"PENDING\", \"attempts\": 0}}", definition()));
        assertThrows(IllegalStateException.class, () -> codec.read(
                "{\"a\": {\"state\": \"PENDING\"}, \"b\": {\"state\": \"PENDING\", \"attempts\": 0},"
                        + " \"c\": {\"state\": \"PENDING\", \"attempts\": 0}}", definition()));
        assertThrows(IllegalStateException.class, () -> codec.read("[]", definition()));
    }

    private JsonNode tree(String text) {
        return json.tree(text);
    }
}
