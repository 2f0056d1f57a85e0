package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * A dotted path into an event's payload, as rules use it in {@code match} keys and {@code $.} references:
 * {@code customer.address.country} walks object fields; a segment of digits indexes an array
 * ({@code items.0.sku}). Segments are never empty and cannot themselves contain a dot, so a field whose name
 * contains a dot cannot be addressed. Resolving a path that leads nowhere gives {@code null} ("missing"),
 * which is different from a JSON {@code null} that is present.
 */
public final class RulePath {

    public static final int MAX_LENGTH = 500;

    private RulePath() {
    }

    /** Why {@code path} is not a valid path, or null when it is. */
    public static String problem(String path) {
        if (path == null || path.isEmpty()) {
            return "a path must not be empty";
        }
        if (path.length() > MAX_LENGTH) {
            return "a path is at most " + MAX_LENGTH + " characters";
        }
        if (path.startsWith(".") || path.endsWith(".") || path.contains("..")) {
            return "'" + path + "' has an empty segment (paths are like a.b.0.c)";
        }
        return null;
    }

    public static List<String> segments(String path) {
        return List.of(path.split("\\.", -1));
    }

    /** The value at {@code path} in {@code root}, or null when the path leads nowhere. */
    public static JsonNode resolve(JsonNode root, String path) {
        JsonNode node = root;
        for (String segment : segments(path)) {
            if (node == null) {
                return null;
            }
            if (node.isObject()) {
                node = node.get(segment);
            } else if (node.isArray() && isIndex(segment)) {
                node = node.get(Integer.parseInt(segment));
            } else {
                return null;
            }
        }
        return node;
    }

    private static boolean isIndex(String segment) {
        if (segment.isEmpty() || segment.length() > 9) {
            return false;
        }
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
