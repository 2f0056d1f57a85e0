package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** A run's tags as the API shows them ({@code {"customer": "c-42"}}, left out for none), read into a sorted map. */
final class Tags {

    private Tags() {
    }

    static SortedMap<String, String> of(JsonNode tags) {
        SortedMap<String, String> read = new TreeMap<>();
        if (tags != null && tags.isObject()) {
            tags.properties().forEach(tag -> read.put(tag.getKey(), tag.getValue().asText()));
        }
        return Collections.unmodifiableSortedMap(read);
    }

    /** A copy, sorted by key, that no caller can change afterwards; null stays null. */
    static SortedMap<String, String> copy(Map<String, String> tags) {
        return tags == null ? null : Collections.unmodifiableSortedMap(new TreeMap<>(tags));
    }
}
