package dev.ductor.run.core;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The rules of a run's tags: a small map of string keys to string values set at start, by which runs are found later
 * ({@code GET /runs?tag=key:value}). Keys are a safe alphabet without a colon, so that {@code key:value} splits at its
 * first colon and a value may hold any text. Small on purpose: tags are the few fields a person searches by, not a
 * second input.
 */
public final class RunTags {

    public static final int MAX_TAGS = 16;
    public static final int MAX_KEY_LENGTH = 64;
    public static final int MAX_VALUE_LENGTH = 256;
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_.-]{1," + MAX_KEY_LENGTH + "}");
    private static final String KEY_RULE = "a tag key must be 1-" + MAX_KEY_LENGTH + " characters of A-Z a-z 0-9 _ . -";
    private static final String VALUE_RULE = "a tag value must be a string of 1-" + MAX_VALUE_LENGTH + " characters";

    private RunTags() {
    }

    /** What is wrong with one tag ({@code tag} is its key), or with the map as a whole ({@code tag} null). */
    public record Violation(String tag, String message) {
    }

    /** One {@code key:value} of a filter. */
    public record Tag(String key, String value) {
    }

    /** The first thing wrong with a start's tags, keys in sorted order so a request is always told the same; null: none. */
    public static Violation check(Map<String, String> tags) {
        if (tags == null) {
            return null;
        }
        if (tags.size() > MAX_TAGS) {
            return new Violation(null, "a run takes at most " + MAX_TAGS + " tags; " + tags.size() + " were sent");
        }
        for (Map.Entry<String, String> tag : new TreeMap<>(tags).entrySet()) {
            if (!KEY.matcher(tag.getKey()).matches()) {
                return new Violation(shown(tag.getKey()), KEY_RULE + ": '" + shown(tag.getKey()) + "' is not one");
            }
            String value = tag.getValue();
            if (value == null || value.isEmpty() || value.length() > MAX_VALUE_LENGTH) {
                return new Violation(tag.getKey(), VALUE_RULE + (value == null ? ", not null" : ""));
            }
        }
        return null;
    }

    /** A key as an answer names it: a key of any length may be sent, but not echoed whole. */
    private static String shown(String key) {
        return key.length() <= MAX_KEY_LENGTH + 16 ? key : key.substring(0, MAX_KEY_LENGTH) + "...";
    }

    /** A start's tags as stored and shown: sorted by key, unmodifiable; null for none (an empty map is none). */
    public static SortedMap<String, String> normalized(Map<String, String> tags) {
        if (tags == null || tags.isEmpty()) {
            return null;
        }
        return Collections.unmodifiableSortedMap(new TreeMap<>(tags));
    }

    /** A tag filter that is not {@code key:value} with a valid key and value; its message says which and shows the form. */
    public static final class InvalidFilterException extends IllegalArgumentException {
        InvalidFilterException(String message) {
            super(message);
        }
    }

    /** {@code key:value} split at its first colon (a key holds none, a value may). */
    public static Tag parse(String filter) {
        int colon = filter == null ? -1 : filter.indexOf(':');
        if (colon < 0) {
            throw new InvalidFilterException("a tag filter is key:value, e.g. customer:c-42; '" + filter + "' has no colon");
        }
        Tag tag = new Tag(filter.substring(0, colon), filter.substring(colon + 1));
        Violation violation = check(Map.of(tag.key(), tag.value()));
        if (violation != null) {
            throw new InvalidFilterException(violation.message() + " (the tag filter '" + filter + "' is key:value)");
        }
        return tag;
    }

    /** The tags as one JSON object, keys sorted; null for none. What the run row's {@code tags} column holds. */
    public static String json(Map<String, String> tags) {
        if (tags == null || tags.isEmpty()) {
            return null;
        }
        ObjectNode object = JsonNodeFactory.instance.objectNode();
        new TreeMap<>(tags).forEach(object::put);
        return object.toString();
    }
}
