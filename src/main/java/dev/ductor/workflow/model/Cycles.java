package dev.ductor.workflow.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Finds one dependency cycle, for an error message that names the nodes on it. */
final class Cycles {

    private enum Mark { VISITING, DONE }

    private Cycles() {
    }

    /** A cycle as {@code a -> b -> a}, or empty when the graph is a DAG. */
    static List<String> find(Map<String, NodeDefinition> nodes) {
        Map<String, Mark> marks = new HashMap<>();
        for (String start : nodes.keySet()) {
            Deque<String> path = new ArrayDeque<>();
            List<String> cycle = visit(start, nodes, marks, path);
            if (!cycle.isEmpty()) {
                return cycle;
            }
        }
        return List.of();
    }

    private static List<String> visit(String id, Map<String, NodeDefinition> nodes, Map<String, Mark> marks,
                                      Deque<String> path) {
        Mark mark = marks.get(id);
        if (mark == Mark.DONE) {
            return List.of();
        }
        path.addLast(id);
        if (mark == Mark.VISITING) {
            List<String> onPath = new ArrayList<>(path);
            List<String> cycle = new ArrayList<>(onPath.subList(onPath.indexOf(id), onPath.size()));
            Collections.reverse(cycle); // dependencies point backwards; read it in execution order
            return cycle;
        }
        marks.put(id, Mark.VISITING);
        for (String dependency : nodes.get(id).dependsOn()) {
            if (nodes.containsKey(dependency)) {
                List<String> cycle = visit(dependency, nodes, marks, path);
                if (!cycle.isEmpty()) {
                    return cycle;
                }
            }
        }
        marks.put(id, Mark.DONE);
        path.removeLast();
        return List.of();
    }
}
