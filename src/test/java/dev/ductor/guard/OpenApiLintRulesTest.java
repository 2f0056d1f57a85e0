package dev.ductor.guard;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The lint finds what it is there to find: each rule fires on a small document that breaks it, and none on a sound one. */
@Tag("unit")
class OpenApiLintRulesTest {

    private static final String SOUND = """
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1", "license": {"name": "MIT", "identifier": "MIT"}},
             "servers": [{"url": "/"}],
             "paths": {"/runs/{runId}": {"post": {"operationId": "signalRun", "summary": "s",
               "parameters": [{"name": "runId", "in": "path", "required": true, "schema": {"type": "string"}}],
               "security": [{"jwt": ["client"]}],
               "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Signal"},
                 "examples": {"ok": {"value": {"name": "paid", "payload": {"any": [1, null]}}}}}}},
               "responses": {"202": {"description": "d", "content": {"application/json": {"schema": {"type": "object",
                 "additionalProperties": true}, "example": {"free": "form"}}}},
                 "404": {"description": "d"}}}}},
             "components": {"securitySchemes": {"jwt": {"type": "http", "scheme": "bearer"}},
               "schemas": {"Signal": {"type": "object", "properties": {"name": {"type": "string"}, "payload": {}}}}}}
            """;

    @Test
    void aSoundDocumentHasNoFinding() {
        OpenApiLint.Report report = OpenApiLint.lint(SOUND);
        assertEquals(List.of(), report.errors());
        assertEquals(List.of(), report.warnings());
    }

    @Test
    void eachBrokenRuleIsAnError() {
        String broken = SOUND
                .replace("\"servers\": [{\"url\": \"/\"}],", "")
                .replace("\"operationId\": \"signalRun\", ", "")
                .replace("\"summary\": \"s\",", "")
                .replace("{\"jwt\": [\"client\"]}", "{\"oauth\": []}")
                .replace("\"name\": \"runId\"", "\"name\": \"id\"")
                .replace("\"payload\": {\"any\": [1, null]}", "\"payload\": 1, \"nodes\": []")
                .replace("\"schema\": {\"type\": \"object\",", "\"x-no-schema\": {\"type\": \"object\",")
                .replace("\"schemas\": {", "\"schemas\": {\"Unused\": {\"type\": \"string\"}, ");
        Set<String> rules = new TreeSet<>(OpenApiLint.lint(broken).errors().stream().map(OpenApiLint.Finding::rule).toList());
        // swagger-parser's own messages ("spec") come on top for some of them.
        rules.remove("spec");
        assertEquals(new TreeSet<>(List.of("no-empty-servers", "operation-operationId", "operation-summary", "security-defined",
                "path-parameters-defined", "no-invalid-media-type-examples", "media-type-schema", "no-unused-components")), rules);
    }

    @Test
    void aRepeatedOperationIdIsAnError() {
        String twice = SOUND.replace("\"paths\": {", """
                "paths": {"/other": {"get": {"operationId": "signalRun", "summary": "s",
                  "responses": {"200": {"description": "d"}, "400": {"description": "d"}}}},
                """);
        assertEquals(List.of("spec", "operation-operationId-unique"),
                OpenApiLint.lint(twice).errors().stream().map(OpenApiLint.Finding::rule).toList());
    }
}
