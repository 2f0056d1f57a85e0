package dev.ductor.workflow;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.runtime.annotations.RegisterForReflection;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;

/**
 * A workflow as the API shows it: the accepted document plus its revision and edit version. {@code output} is the
 * template of the run's output, null (and left out) when the workflow declares none; {@code retention} how long its
 * finished runs are kept, null (and left out) when it follows the server's default.
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StoredWorkflow(String name, int revision, long version, String retention, JsonNode output, @Schema(type = SchemaType.ARRAY, implementation = WorkflowDocument.Node.class) JsonNode nodes, Instant createdAt,
                             Instant updatedAt) {
}
