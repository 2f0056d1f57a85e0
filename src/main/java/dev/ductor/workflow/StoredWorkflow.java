package dev.ductor.workflow;

import io.quarkus.runtime.annotations.RegisterForReflection;
import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;

/** A workflow as the API shows it: the accepted document plus its revision and edit version. */
@RegisterForReflection
public record StoredWorkflow(String name, int revision, long version, JsonNode nodes, Instant createdAt, Instant updatedAt) {
}
