package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;

/** An event a command decided on, not yet appended. */
public record NewEvent(String type, JsonNode payload) {
}
