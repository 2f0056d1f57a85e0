package dev.ductor.sdk;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How to start a run: an idempotency key (the same key and body again return the same run; another body is refused),
 * a tier ({@code interactive}, {@code standard}, {@code batch}...) and tags, the business data the run is found by later
 * ({@link RunQuery#tag}): at most 16, keys 1-64 characters of {@code A-Z a-z 0-9 _ . -}, values 1-256 characters. All
 * optional.
 */
public record StartOptions(String idempotencyKey, String tier, SortedMap<String, String> tags) {

    public StartOptions {
        tags = Tags.copy(tags);
    }

    public StartOptions(String idempotencyKey, String tier) {
        this(idempotencyKey, tier, null);
    }

    public static StartOptions none() {
        return new StartOptions(null, null);
    }

    public static StartOptions key(String idempotencyKey) {
        return new StartOptions(idempotencyKey, null);
    }

    public StartOptions tier(String tier) {
        return new StartOptions(idempotencyKey, tier, tags);
    }

    /** These tags instead of any given before. */
    public StartOptions tags(Map<String, String> tags) {
        return new StartOptions(idempotencyKey, tier, tags == null ? null : new TreeMap<>(tags));
    }

    /** One more tag ({@code tag("customer", "c-42")}). */
    public StartOptions tag(String key, String value) {
        SortedMap<String, String> more = tags == null ? new TreeMap<>() : new TreeMap<>(tags);
        more.put(key, value);
        return new StartOptions(idempotencyKey, tier, more);
    }
}
