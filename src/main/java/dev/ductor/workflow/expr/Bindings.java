package dev.ductor.workflow.expr;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;
import java.util.function.Function;

/**
 * The values one evaluation reads. {@code nodes} is asked only for the nodes the expression names
 * ({@link Template#nodesRead()}), so a large output is converted only when it is read. {@code item} is null and
 * {@code index} -1 outside a fan-out.
 */
public record Bindings(JsonNode input, Function<String, NodeFacts> nodes, RunFacts run, JsonNode item, long index) {

    public static Bindings of(JsonNode input, Map<String, NodeFacts> nodes, RunFacts run) {
        return new Bindings(input, nodes::get, run, null, -1);
    }

    public Bindings forItem(JsonNode value, long position) {
        return new Bindings(input, nodes, run, value, position);
    }
}
