package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A resource (workflow, pool, rule) and its version, the {@code ETag}: send it back as {@code ifMatch} to change the
 * resource. {@code created} is true when a PUT created it.
 */
public record Versioned(JsonNode body, long version, boolean created) {
}
