package dev.ductor.run.core;

import dev.ductor.workflow.model.NodeDefinition;
import dev.ductor.workflow.model.WorkflowDefinition;

import java.util.HashSet;
import java.util.Set;

/** Nodes and everything downstream of them: what a reset from those nodes reopens. */
final class Descendants {

    private Descendants() {
    }

    static Set<String> of(WorkflowDefinition definition, Set<String> from) {
        Set<String> all = new HashSet<>(from);
        boolean grew;
        do {
            grew = false;
            for (NodeDefinition node : definition.nodes()) {
                if (!all.contains(node.id()) && node.dependsOn().stream().anyMatch(all::contains)) {
                    all.add(node.id());
                    grew = true;
                }
            }
        } while (grew);
        return all;
    }
}
