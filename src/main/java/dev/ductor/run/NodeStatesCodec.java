package dev.ductor.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.config.JsonCodec;
import dev.ductor.run.core.NodeState;
import dev.ductor.run.core.NodeStatus;
import dev.ductor.workflow.model.WorkflowDefinition;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code node_states} column: {@code {id: {state, attempts, output?, error?}}}, read back in definition order. */
@ApplicationScoped
public class NodeStatesCodec {

    @Inject JsonCodec json;

    public String write(Map<String, NodeState> nodes) {
        ObjectNode out = json.mapper().createObjectNode();
        nodes.forEach((id, node) -> {
            ObjectNode n = out.putObject(id);
            n.put("state", node.state().name());
            n.put("attempts", node.attempts());
            if (node.output() != null) {
                n.set("output", node.output());
            }
            if (node.error() != null) {
                n.put("error", node.error());
            }
        });
        return json.write(out);
    }

    /** jsonb does not keep key order, so the definition decides it. */
    public Map<String, NodeState> read(String stored, WorkflowDefinition definition) {
        JsonNode raw = json.tree(stored);
        Map<String, NodeState> nodes = new LinkedHashMap<>();
        definition.nodes().forEach(def -> {
            JsonNode n = raw.get(def.id());
            if (n == null) {
                throw new IllegalStateException("node_states lacks node '" + def.id() + "'");
            }
            nodes.put(def.id(), new NodeState(NodeStatus.valueOf(n.get("state").asText()), n.get("attempts").asInt(),
                    n.has("output") ? n.get("output") : null, n.has("error") ? n.get("error").asText() : null));
        });
        return nodes;
    }
}
