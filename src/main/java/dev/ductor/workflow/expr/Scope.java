package dev.ductor.workflow.expr;

import java.util.Set;

/**
 * Where an expression sits in a definition: the nodes it may read ({@code nodes.<id>}, the node's dependencies,
 * direct and transitive) and whether it is inside a fan-out ({@code item} and {@code index} exist only there).
 */
public record Scope(Set<String> readableNodes, boolean fanOut) {

    public Scope {
        readableNodes = Set.copyOf(readableNodes);
    }
}
