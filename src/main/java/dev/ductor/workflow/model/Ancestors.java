package dev.ductor.workflow.model;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Every node's dependencies, direct and transitive: the nodes its expressions may read. The graph is acyclic. */
final class Ancestors {

    private Ancestors() {
    }

    static Map<String, Set<String>> of(Map<String, NodeDefinition> nodes) {
        Map<String, Set<String>> ancestors = new HashMap<>();
        nodes.keySet().forEach(id -> collect(id, nodes, ancestors));
        return ancestors;
    }

    private static Set<String> collect(String id, Map<String, NodeDefinition> nodes, Map<String, Set<String>> done) {
        Set<String> known = done.get(id);
        if (known != null) {
            return known;
        }
        Set<String> all = new HashSet<>();
        NodeDefinition node = nodes.get(id);
        if (node != null) {
            for (String dependency : node.dependsOn()) {
                all.add(dependency);
                all.addAll(collect(dependency, nodes, done));
            }
        }
        done.put(id, all);
        return all;
    }
}
