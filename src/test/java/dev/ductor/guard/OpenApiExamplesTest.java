package dev.ductor.guard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.support.ManualCoordination;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every operation under {@code /api/v1} in {@code /q/openapi} is documented for a reader: it has a summary, its JSON
 * request body (if any) has an example that is valid JSON, and at least one success response shows an example body.
 * Every example given on any response must be valid JSON too.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("api")
class OpenApiExamplesTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> METHODS = Set.of("get", "put", "post", "patch", "delete");

    @Test
    void everyApiOperationHasASummaryAndExamples() throws Exception {
        String text = RestAssured.given().accept("application/json").get("/q/openapi?format=json")
                .then().statusCode(200).extract().asString();
        JsonNode paths = MAPPER.readTree(text).path("paths");
        assertTrue(paths.isObject(), "the OpenAPI document has no paths");
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = paths.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            if (!path.getKey().startsWith("/api/v1")) {
                continue;
            }
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                if (!METHODS.contains(op.getKey())) {
                    continue;
                }
                checked++;
                String where = op.getKey().toUpperCase() + " " + path.getKey();
                JsonNode operation = op.getValue();
                if (operation.path("summary").asText("").isBlank()) {
                    problems.add(where + ": no summary");
                }
                if (operation.has("requestBody")) {
                    JsonNode json = operation.path("requestBody").path("content").path("application/json");
                    int valid = validExamples(json, where + " request body", problems);
                    if (valid == 0) {
                        problems.add(where + ": the JSON request body has no example");
                    }
                }
                boolean successExample = false;
                JsonNode responses = operation.path("responses");
                for (Iterator<Map.Entry<String, JsonNode>> rs = responses.fields(); rs.hasNext(); ) {
                    Map.Entry<String, JsonNode> response = rs.next();
                    for (Iterator<Map.Entry<String, JsonNode>> media = response.getValue().path("content").fields(); media.hasNext(); ) {
                        Map.Entry<String, JsonNode> content = media.next();
                        int valid = validExamples(content.getValue(), where + " " + response.getKey() + " " + content.getKey(), problems);
                        if (valid > 0 && response.getKey().startsWith("2")) {
                            successExample = true;
                        }
                    }
                }
                if (!successExample) {
                    problems.add(where + ": no 2xx response with an example");
                }
            }
        }
        System.out.println("[openapi examples] operations under /api/v1 checked: " + checked);
        assertTrue(checked > 0, "no operation under /api/v1 in the OpenAPI document");
        if (!problems.isEmpty()) {
            fail(problems.size() + " documentation gaps:\n  " + String.join("\n  ", problems));
        }
    }

    /** Counts the examples of a media type object whose value is JSON; a string value must parse as JSON. */
    private static int validExamples(JsonNode mediaType, String where, List<String> problems) {
        List<JsonNode> values = new ArrayList<>();
        if (mediaType.has("example")) {
            values.add(mediaType.get("example"));
        }
        mediaType.path("examples").forEach(example -> {
            if (example.has("value")) {
                values.add(example.get("value"));
            }
        });
        int valid = 0;
        for (JsonNode value : values) {
            if (value.isTextual()) {
                try {
                    MAPPER.readTree(value.asText());
                    valid++;
                } catch (Exception e) {
                    problems.add(where + ": example is not valid JSON: " + value.asText());
                }
            } else if (!value.isMissingNode() && !value.isNull()) {
                valid++;
            }
        }
        return valid;
    }
}
