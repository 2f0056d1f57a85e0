package dev.ductor.workflow;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;

/** One accepted, immutable revision of a workflow as the API shows it. */
public record StoredRevision(String name, int revision, JsonNode nodes, Instant createdAt) {
}
