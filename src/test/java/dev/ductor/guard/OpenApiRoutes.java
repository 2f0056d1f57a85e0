package dev.ductor.guard;

import dev.ductor.support.Api;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Every operation the running application documents under {@code /api/v1}, read from its OpenAPI document. */
final class OpenApiRoutes {

    static final Set<String> METHODS = Set.of("get", "put", "post", "patch", "delete");
    static final Set<String> MUTATING = Set.of("PUT", "POST", "PATCH", "DELETE");

    private OpenApiRoutes() {
    }

    record Operation(String method, String template, List<String> pathParams, List<String> queryParams,
                     List<String> headerParams, boolean hasBody) {

        /** Method and template with every path parameter written {@code {}}, the key of the contract table. */
        String key() {
            return method + " " + normalize(template);
        }

        boolean mutating() {
            return MUTATING.contains(method);
        }

        @Override
        public String toString() {
            return method + " " + template;
        }
    }

    static String normalize(String template) {
        return template.replaceAll("\\{[^}/]+}", "{}");
    }

    static List<Operation> fetch(Api http) {
        Api.Reply reply = http.send("GET", "/q/openapi?format=json", Map.of("Accept", "application/json"), (byte[]) null);
        if (reply.status() != 200) {
            throw new AssertionError("GET /q/openapi?format=json answered " + reply.excerpt());
        }
        JsonNode document = reply.json();
        if (document == null || !document.path("paths").isObject()) {
            throw new AssertionError("the OpenAPI document has no paths: " + reply.excerpt());
        }
        List<Operation> operations = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = document.get("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            if (!path.getKey().startsWith("/api/v1")) {
                continue;
            }
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                if (!METHODS.contains(op.getKey())) {
                    continue;
                }
                List<String> pathParams = new ArrayList<>();
                List<String> queryParams = new ArrayList<>();
                List<String> headerParams = new ArrayList<>();
                List<JsonNode> params = new ArrayList<>();
                path.getValue().path("parameters").forEach(params::add);
                op.getValue().path("parameters").forEach(params::add);
                for (JsonNode param : params) {
                    String name = param.path("name").asText();
                    switch (param.path("in").asText()) {
                        case "path" -> pathParams.add(name);
                        case "query" -> queryParams.add(name);
                        case "header" -> headerParams.add(name);
                        default -> { }
                    }
                }
                // Path parameters in template order (the document may list them in any order).
                List<String> ordered = new ArrayList<>();
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{([^}/]+)}").matcher(path.getKey());
                while (m.find()) {
                    ordered.add(m.group(1));
                }
                operations.add(new Operation(op.getKey().toUpperCase(), path.getKey(), ordered, queryParams, headerParams,
                        op.getValue().has("requestBody")));
            }
        }
        if (operations.isEmpty()) {
            throw new AssertionError("the OpenAPI document lists no operation under /api/v1");
        }
        return operations;
    }
}
