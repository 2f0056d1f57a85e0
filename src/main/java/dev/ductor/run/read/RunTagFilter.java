package dev.ductor.run.read;

import dev.ductor.error.BadRequestException;
import dev.ductor.run.core.RunTags;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs carrying every one of some tags ({@code tag=customer:c-42&tag=channel:web}), as SQL: the one place that
 * builds the predicate, for the run list ({@link RunQueries#list}) and the bulk actions' filter alike. One JSON
 * containment ({@code tags @> '{"customer": "c-42", "channel": "web"}'}), which the partial GIN index of V17 answers
 * (its predicate, {@code tags IS NOT NULL}, is spelled out so that the planner need not prove it), however many
 * runs there are.
 */
public record RunTagFilter(Map<String, String> tags) {

    /** No tag asked for: matches every run, and adds nothing to a statement. */
    public static final RunTagFilter NONE = new RunTagFilter(Map.of());

    /**
     * The filters as sent ({@code key:value} each), or a 400 naming {@code field} for one that is not. Two values for
     * one key match no run (a run has one value a key), so they are refused rather than answered with nothing.
     */
    public static RunTagFilter of(List<String> filters, String field) {
        if (filters == null || filters.isEmpty()) {
            return NONE;
        }
        if (filters.size() > RunTags.MAX_TAGS) {
            throw new BadRequestException(field, "at most " + RunTags.MAX_TAGS + " tag filters (a run has at most as many tags)");
        }
        Map<String, String> tags = new TreeMap<>();
        for (String filter : filters) {
            RunTags.Tag tag;
            try {
                tag = RunTags.parse(filter);
            } catch (RunTags.InvalidFilterException e) {
                throw new BadRequestException(field, field + ": " + e.getMessage());
            }
            String before = tags.putIfAbsent(tag.key(), tag.value());
            if (before != null && !before.equals(tag.value())) {
                throw new BadRequestException(field, field + ": tag '" + tag.key() + "' is asked for twice, as '" + before
                        + "' and '" + tag.value() + "'; a run has one value a key, so no run could match");
            }
        }
        return new RunTagFilter(Map.copyOf(tags));
    }

    public boolean isEmpty() {
        return tags.isEmpty();
    }

    /** The predicate on the run row aliased {@code run}, its one parameter {@code parameter} ({@code ?} or {@code :name}). */
    public String predicate(String run, String parameter) {
        return run + ".tags IS NOT NULL AND " + run + ".tags @> CAST(" + parameter + " AS jsonb)";
    }

    /** The value of that parameter: the tags asked for, as one JSON object. */
    public String containment() {
        return RunTags.json(tags);
    }
}
