package dev.ductor.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;

/** One accepted, immutable revision of a workflow as the API shows it. */
public record StoredRevision(String name, int revision, @Schema(type = SchemaType.ARRAY, implementation = WorkflowDocument.Node.class) JsonNode nodes, Instant createdAt) {
}
