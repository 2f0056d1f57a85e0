package dev.ductor.run;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.ductor.config.JsonCodec;
import dev.ductor.run.core.NodeState;
import dev.ductor.run.core.NodeStatus;
import dev.ductor.workflow.model.WorkflowDefinition;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code node_states} column: {@code {id: {state, attempts, leaseRetries?, output?, error?, input?, byOperator?,
 * items?: [{state, attempts, ...}]}}}, read back in definition order. The optional fields are written only when set, so
 * rows written before they existed read back the same.
 *
 * <p>Streamed rather than built as a tree and then walked: every commit writes this column and every load reads it,
 * and the tree in between (a map per node, a node per field) would be a pod's largest JSON cost. Only a
 * node's {@code output}, which is free-form, is read as a tree.
 */
@ApplicationScoped
public class NodeStatesCodec {

    @Inject JsonCodec json;

    /** Reads one output in the middle of the column: the document goes on after it, unlike a whole request body's. */
    private ObjectReader valueReader;

    @PostConstruct
    void init() {
        valueReader = json.mapper().readerFor(JsonNode.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    public String write(Map<String, NodeState> nodes) {
        ObjectMapper mapper = json.mapper();
        StringWriter text = new StringWriter(64 * nodes.size());
        try (JsonGenerator out = mapper.createGenerator(text)) {
            out.writeStartObject();
            for (Map.Entry<String, NodeState> entry : nodes.entrySet()) {
                out.writeFieldName(entry.getKey());
                writeNode(out, mapper, entry.getValue());
            }
            out.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialise node states", e);
        }
        return text.toString();
    }

    /** One node's object; a fan-out's items are objects of the same form, in an array. */
    private static void writeNode(JsonGenerator out, ObjectMapper mapper, NodeState node) throws IOException {
        out.writeStartObject();
        out.writeStringField("state", node.state().name());
        out.writeNumberField("attempts", node.attempts());
        if (node.leaseRetries() != 0) {
            out.writeNumberField("leaseRetries", node.leaseRetries());
        }
        if (node.output() != null) {
            out.writeFieldName("output");
            mapper.writeTree(out, node.output());
        }
        if (node.error() != null) {
            out.writeStringField("error", node.error());
        }
        if (node.input() != null) {
            out.writeFieldName("input");
            mapper.writeTree(out, node.input());
        }
        if (node.byOperator()) {
            out.writeBooleanField("byOperator", true);
        }
        if (node.priorAttempts() != 0) {
            out.writeNumberField("priorAttempts", node.priorAttempts());
        }
        if (node.items() != null) {
            out.writeArrayFieldStart("items");
            for (NodeState item : node.items()) {
                writeNode(out, mapper, item);
            }
            out.writeEndArray();
        }
        out.writeEndObject();
    }

    /** jsonb does not keep key order, so the definition decides it. */
    public Map<String, NodeState> read(String stored, WorkflowDefinition definition) {
        Map<String, NodeState> byId = new HashMap<>();
        try (JsonParser in = json.mapper().createParser(stored)) {
            expect(in.nextToken(), JsonToken.START_OBJECT);
            while (in.nextToken() == JsonToken.FIELD_NAME) {
                String id = in.currentName();
                expect(in.nextToken(), JsonToken.START_OBJECT);
                byId.put(id, node(in, valueReader));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("stored JSON is unreadable", e);
        }
        Map<String, NodeState> nodes = new LinkedHashMap<>();
        definition.nodes().forEach(def -> {
            NodeState n = byId.get(def.id());
            if (n == null) {
                throw new IllegalStateException("node_states lacks node '" + def.id() + "'");
            }
            nodes.put(def.id(), n);
        });
        return nodes;
    }

    /** One node's object, the parser on its START_OBJECT; leaves the parser on its END_OBJECT. */
    private static NodeState node(JsonParser in, ObjectReader values) throws IOException {
        NodeStatus state = null;
        Integer attempts = null;
        int leaseRetries = 0;
        JsonNode output = null;
        String error = null;
        JsonNode input = null;
        boolean byOperator = false;
        int priorAttempts = 0;
        List<NodeState> items = null;
        while (in.nextToken() == JsonToken.FIELD_NAME) {
            String field = in.currentName();
            in.nextToken();
            switch (field) {
                case "state" -> state = NodeStatus.valueOf(in.getText());
                case "attempts" -> attempts = in.getValueAsInt();
                case "leaseRetries" -> leaseRetries = in.getValueAsInt();
                case "output" -> output = values.readValue(in);
                case "error" -> error = values.<JsonNode>readValue(in).asText();
                case "input" -> input = values.readValue(in);
                case "byOperator" -> byOperator = in.getValueAsBoolean();
                case "priorAttempts" -> priorAttempts = in.getValueAsInt();
                case "items" -> {
                    items = new ArrayList<>();
                    while (in.nextToken() == JsonToken.START_OBJECT) {
                        items.add(node(in, values));
                    }
                }
                default -> in.skipChildren();
            }
        }
        if (state == null || attempts == null) {
            throw new IllegalStateException("a node in node_states lacks its " + (state == null ? "state" : "attempts"));
        }
        return new NodeState(state, attempts, output, error, leaseRetries, input, items, byOperator, priorAttempts);
    }

    private static void expect(JsonToken actual, JsonToken wanted) {
        if (actual != wanted) {
            throw new IllegalStateException("node_states is not an object of objects: found " + actual);
        }
    }
}
