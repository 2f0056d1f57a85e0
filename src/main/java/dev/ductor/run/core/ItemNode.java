package dev.ductor.run.core;

import java.util.Optional;

/**
 * The name one item of a fan-out goes by outside the run: {@code lines[37]} for item 37 of node {@code lines}. Its
 * tasks, their results and its history entries carry it where a node id goes, so the queue, the inbox and external
 * workers need nothing new; node ids cannot contain brackets, so the two never meet.
 */
public record ItemNode(String node, int index) {

    public static String name(String node, int index) {
        return node + '[' + index + ']';
    }

    public String name() {
        return name(node, index);
    }

    public static Optional<ItemNode> parse(String name) {
        if (name == null || !name.endsWith("]")) {
            return Optional.empty();
        }
        int open = name.lastIndexOf('[');
        if (open <= 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(new ItemNode(name.substring(0, open), Integer.parseInt(name.substring(open + 1, name.length() - 1))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
