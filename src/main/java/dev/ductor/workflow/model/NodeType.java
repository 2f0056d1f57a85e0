package dev.ductor.workflow.model;

import java.util.Arrays;
import java.util.Optional;

/** What a node waits for: a step worker ({@code task}), a named signal, a durable delay, or a child run ({@code workflow}). */
public enum NodeType {
    TASK("task"), SIGNAL("signal"), TIMER("timer"), WORKFLOW("workflow");

    private final String wireName;

    NodeType(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<NodeType> fromWire(String name) {
        return Arrays.stream(values()).filter(t -> t.wireName.equals(name)).findFirst();
    }
}
