package dev.ductor.guard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rules of Redocly CLI's "recommended" ruleset that decide whether client generators accept an OpenAPI document,
 * in Java, so the build checks them with nothing downloaded. Errors: the document does not parse cleanly
 * (swagger-parser, what openapi-generator reads it with), an operation without an operationId or with one used twice,
 * an example its own schema refuses, a component nothing uses, no servers, a security requirement naming an undefined
 * scheme, a path parameter not declared (or declared and not in the path), an operation without a summary, a JSON
 * request body or 2xx answer without a schema. Warnings
 * (counted, not fatal, as Redocly has them): no license, an operation without a 4xx answer.
 *
 * <p>Examples are checked as Redocly does by default ({@code allowAdditionalProperties: false}): an object schema that
 * lists its properties takes no others, so a body field the schema does not describe is an error. A schema that says
 * {@code additionalProperties} (a map, a problem's extension members) keeps its word.
 */
final class OpenApiLint {

    record Finding(String rule, String where, String message) {
        @Override
        public String toString() {
            return rule + " at " + where + ": " + message;
        }
    }

    record Report(List<Finding> errors, List<Finding> warnings) {
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> METHODS = Set.of("get", "put", "post", "patch", "delete", "head", "options", "trace");
    private static final Pattern TEMPLATE = Pattern.compile("\\{([^}/]+)}");
    private static final Pattern URL_SAFE = Pattern.compile("[A-Za-z0-9_.~-]+");
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private final JsonNode document;
    private final List<Finding> errors = new ArrayList<>();
    private final List<Finding> warnings = new ArrayList<>();

    private OpenApiLint(JsonNode document) {
        this.document = document;
    }

    static Report lint(String json) {
        JsonNode document;
        try {
            document = MAPPER.readTree(json);
        } catch (Exception e) {
            return new Report(List.of(new Finding("spec", "document", "not JSON: " + e.getMessage())), List.of());
        }
        OpenApiLint lint = new OpenApiLint(document);
        lint.parses(json);
        lint.servers();
        lint.operations();
        lint.unusedComponents();
        if (document.path("info").path("license").isMissingNode()) {
            lint.warnings.add(new Finding("info-license", "info", "no license"));
        }
        return new Report(List.copyOf(lint.errors), List.copyOf(lint.warnings));
    }

    private void parses(String json) {
        ParseOptions options = new ParseOptions();
        options.setResolve(false);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(json, null, options);
        if (result.getOpenAPI() == null) {
            errors.add(new Finding("spec", "document", "swagger-parser could not read it"));
        }
        if (result.getMessages() != null) {
            result.getMessages().forEach(message -> errors.add(new Finding("spec", "document", message)));
        }
    }

    private void servers() {
        JsonNode servers = document.path("servers");
        if (!servers.isArray() || servers.isEmpty()) {
            errors.add(new Finding("no-empty-servers", "servers", "no server: a client does not know where to send"));
            return;
        }
        servers.forEach(server -> {
            if (server.path("url").asText("").contains("example.com")) {
                warnings.add(new Finding("no-server-example.com", "servers", server.path("url").asText()));
            }
        });
    }

    private void operations() {
        Map<String, String> operationIds = new HashMap<>();
        Set<String> schemes = new HashSet<>();
        document.path("components").path("securitySchemes").fieldNames().forEachRemaining(schemes::add);
        securityDefined("root", document.path("security"), schemes);
        for (Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                if (!METHODS.contains(op.getKey())) {
                    continue;
                }
                String where = op.getKey().toUpperCase() + " " + path.getKey();
                JsonNode operation = op.getValue();
                String id = operation.path("operationId").asText("");
                if (id.isBlank()) {
                    errors.add(new Finding("operation-operationId", where, "no operationId"));
                } else if (!URL_SAFE.matcher(id).matches()) {
                    errors.add(new Finding("operation-operationId-url-safe", where, "'" + id + "' is not URL-safe"));
                } else if (operationIds.putIfAbsent(id, where) != null) {
                    errors.add(new Finding("operation-operationId-unique", where, "'" + id + "' is also " + operationIds.get(id)));
                }
                if (operation.path("summary").asText("").isBlank()) {
                    errors.add(new Finding("operation-summary", where, "no summary"));
                }
                securityDefined(where, operation.path("security"), schemes);
                pathParameters(where, path.getKey(), path.getValue().path("parameters"), operation.path("parameters"));
                responses(where, operation.path("responses"));
                JsonNode body = operation.path("requestBody");
                if (!body.isMissingNode()) {
                    schemaGiven(where + " request body", body.path("content"));
                    mediaExamples(where + " request body", body.path("content"));
                }
            }
        }
    }

    private void securityDefined(String where, JsonNode requirements, Set<String> schemes) {
        requirements.forEach(requirement -> requirement.fieldNames().forEachRemaining(name -> {
            if (!schemes.contains(name)) {
                errors.add(new Finding("security-defined", where, "security scheme '" + name + "' is not defined"));
            }
        }));
    }

    private void pathParameters(String where, String template, JsonNode pathLevel, JsonNode operationLevel) {
        Set<String> inTemplate = new LinkedHashSet<>();
        Matcher m = TEMPLATE.matcher(template);
        while (m.find()) {
            inTemplate.add(m.group(1));
        }
        Set<String> declared = new LinkedHashSet<>();
        for (JsonNode parameters : List.of(pathLevel, operationLevel)) {
            parameters.forEach(parameter -> {
                JsonNode resolved = resolve(parameter);
                if ("path".equals(resolved.path("in").asText())) {
                    declared.add(resolved.path("name").asText());
                }
            });
        }
        inTemplate.stream().filter(name -> !declared.contains(name)).forEach(name ->
                errors.add(new Finding("path-parameters-defined", where, "{" + name + "} is not declared as a path parameter")));
        declared.stream().filter(name -> !inTemplate.contains(name)).forEach(name ->
                errors.add(new Finding("path-parameters-defined", where, "path parameter '" + name + "' is not in the path")));
    }

    private void responses(String where, JsonNode responses) {
        boolean success = false;
        boolean clientError = false;
        for (Iterator<Map.Entry<String, JsonNode>> it = responses.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> response = it.next();
            success |= response.getKey().startsWith("2") || response.getKey().startsWith("3");
            clientError |= response.getKey().startsWith("4");
            JsonNode content = resolve(response.getValue()).path("content");
            if (response.getKey().startsWith("2")) {
                schemaGiven(where + " " + response.getKey(), content);
            }
            mediaExamples(where + " " + response.getKey(), content);
        }
        if (!success) {
            warnings.add(new Finding("operation-2xx-response", where, "no 2xx or 3xx answer"));
        }
        if (!clientError) {
            warnings.add(new Finding("operation-4xx-response", where, "no 4xx answer"));
        }
    }

    /**
     * A JSON body without a schema: a generated client cannot send it, or returns nothing for it. Not one of Redocly's
     * rules (a document may leave a body undescribed); ours, since the document is for generating clients.
     */
    private void schemaGiven(String where, JsonNode content) {
        content.fields().forEachRemaining(media -> {
            if (media.getKey().contains("json") && !media.getValue().has("schema")) {
                errors.add(new Finding("media-type-schema", where + " " + media.getKey(), "no schema"));
            }
        });
    }

    /** Every example of every media type, validated against that media type's schema (when it has one). */
    private void mediaExamples(String where, JsonNode content) {
        for (Iterator<Map.Entry<String, JsonNode>> media = content.fields(); media.hasNext(); ) {
            Map.Entry<String, JsonNode> type = media.next();
            JsonNode schema = type.getValue().get("schema");
            if (schema == null) {
                continue;
            }
            Schema validator = validator(schema);
            Map<String, JsonNode> examples = new java.util.LinkedHashMap<>();
            if (type.getValue().has("example")) {
                examples.put("example", type.getValue().get("example"));
            }
            type.getValue().path("examples").fields().forEachRemaining(e -> examples.put(e.getKey(), resolve(e.getValue()).path("value")));
            examples.forEach((name, value) -> {
                if (value.isMissingNode()) {
                    return;
                }
                List<Error> refusals = validator.validate(value);
                if (!refusals.isEmpty()) {
                    errors.add(new Finding("no-invalid-media-type-examples", where + " " + type.getKey() + " example '" + name + "'",
                            refusals.stream().limit(5).map(e -> e.getInstanceLocation() + " " + e.getMessage()).toList().toString()));
                }
            });
        }
    }

    /** The media type's schema with the document's components beside it, so that its {@code $ref}s resolve. */
    private Schema validator(JsonNode schema) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.set("components", closed(document.path("components").deepCopy()));
        root.putArray("allOf").add(closed(schema.deepCopy()));
        return SCHEMAS.getSchema(SchemaLocation.of("https://ductor.dev/openapi.json"), root);
    }

    /** Every object schema that lists its properties and says nothing of others gets {@code unevaluatedProperties: false}. */
    private static JsonNode closed(JsonNode node) {
        if (node instanceof ObjectNode object) {
            if (object.has("properties") && !object.has("additionalProperties") && !object.has("unevaluatedProperties")) {
                object.put("unevaluatedProperties", false);
            }
            object.forEach(OpenApiLint::closed);
        } else if (node.isArray()) {
            node.forEach(OpenApiLint::closed);
        }
        return node;
    }

    private JsonNode resolve(JsonNode node) {
        JsonNode ref = node.get("$ref");
        if (ref == null || !ref.asText().startsWith("#/")) {
            return node;
        }
        return document.at(ref.asText().substring(1));
    }

    /** A component that no {@code $ref} anywhere in the document names (a schema may be named by another schema). */
    private void unusedComponents() {
        Set<String> referenced = new HashSet<>();
        collectRefs(document, referenced);
        for (Iterator<Map.Entry<String, JsonNode>> kinds = document.path("components").fields(); kinds.hasNext(); ) {
            Map.Entry<String, JsonNode> kind = kinds.next();
            if (kind.getKey().equals("securitySchemes")) {
                continue; // used by name in security requirements, not by $ref
            }
            kind.getValue().fieldNames().forEachRemaining(name -> {
                String ref = "#/components/" + kind.getKey() + "/" + name;
                if (!referenced.contains(ref)) {
                    errors.add(new Finding("no-unused-components", ref, "nothing refers to it"));
                }
            });
        }
    }

    private static void collectRefs(JsonNode node, Set<String> referenced) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && ref.isTextual()) {
                referenced.add(ref.asText());
            }
            node.forEach(child -> collectRefs(child, referenced));
        } else if (node.isArray()) {
            node.forEach(child -> collectRefs(child, referenced));
        }
    }
}
