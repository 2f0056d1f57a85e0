package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;

/** One stored event of an aggregate, at {@code version} (1, 2, 3, ... without gaps). */
public record AggregateEvent(long version, String type, JsonNode payload, String recordedBy, Instant recordedAt) {
}
