package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The OpenAPI document stays as complete as it was when its shared parts moved to META-INF/openapi.yaml and
 * {@code ApiDocumentation}: every operation of {@code openapi-responses.txt} (recorded from the document before the
 * move) is still there, with at least its response codes, each with at least as many examples.
 */
@QuarkusTest
@Tag("api")
class OpenApiCompletenessTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> METHODS = Set.of("get", "put", "post", "patch", "delete");

    /** Operation ("GET /api/v1/runs/{runId}") to response code (or "body", the JSON request body) to number of examples. */
    static Map<String, Map<String, Integer>> summary(JsonNode document) {
        Map<String, Map<String, Integer>> operations = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                if (!METHODS.contains(op.getKey())) {
                    continue;
                }
                Map<String, Integer> responses = new TreeMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> rs = op.getValue().path("responses").fields(); rs.hasNext(); ) {
                    Map.Entry<String, JsonNode> response = rs.next();
                    int examples = 0;
                    for (JsonNode media : response.getValue().path("content")) {
                        examples += media.path("examples").size() + (media.has("example") ? 1 : 0);
                    }
                    responses.put(response.getKey(), examples);
                }
                JsonNode body = op.getValue().path("requestBody").path("content").path("application/json");
                if (!body.isMissingNode()) {
                    responses.put("body", body.path("examples").size() + (body.has("example") ? 1 : 0));
                }
                operations.put(op.getKey().toUpperCase() + " " + path.getKey(), responses);
            }
        }
        return operations;
    }

    static String render(Map<String, Map<String, Integer>> summary) {
        StringBuilder text = new StringBuilder();
        summary.forEach((op, responses) -> {
            text.append(op).append(':');
            responses.forEach((code, examples) -> text.append(' ').append(code).append('=').append(examples));
            text.append('\n');
        });
        return text.toString();
    }

    static Map<String, Map<String, Integer>> parse(String text) {
        Map<String, Map<String, Integer>> summary = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            Map<String, Integer> responses = new TreeMap<>();
            for (String part : line.substring(colon + 1).trim().split(" ")) {
                if (!part.isBlank()) {
                    String[] kv = part.split("=");
                    responses.put(kv[0], Integer.parseInt(kv[1]));
                }
            }
            summary.put(line.substring(0, colon), responses);
        }
        return summary;
    }

    @Test
    void everyOperationKeepsItsResponsesAndExamples() throws Exception {
        String text = RestAssured.given().accept("application/json").get("/q/openapi?format=json")
                .then().statusCode(200).extract().asString();
        Map<String, Map<String, Integer>> now = summary(MAPPER.readTree(text));
        int responses = now.values().stream().mapToInt(r -> r.containsKey("body") ? r.size() - 1 : r.size()).sum();
        int examples = now.values().stream().flatMap(r -> r.values().stream()).mapToInt(Integer::intValue).sum();
        System.out.println("[openapi] operations=" + now.size() + " responses=" + responses + " examples=" + examples);
        String record = System.getProperty("openapiRecord");
        if (record != null) {
            Files.writeString(Path.of(record), render(now));
            Files.writeString(Path.of(record + ".json"), text);
        }
        String baseline;
        try (InputStream in = getClass().getResourceAsStream("openapi-responses.txt")) {
            assertTrue(in != null, "openapi-responses.txt is missing");
            baseline = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> gaps = new ArrayList<>();
        parse(baseline).forEach((op, was) -> {
            Map<String, Integer> is = now.get(op);
            if (is == null) {
                gaps.add(op + ": gone");
                return;
            }
            was.forEach((code, count) -> {
                if (!is.containsKey(code)) {
                    gaps.add(op + ": " + code + " gone");
                } else if (is.get(code) < count) {
                    gaps.add(op + ": response " + code + " has " + is.get(code) + " examples, had " + count);
                }
            });
        });
        if (!gaps.isEmpty()) {
            fail(gaps.size() + " gaps:\n  " + String.join("\n  ", new TreeSet<>(gaps)));
        }
    }
}
