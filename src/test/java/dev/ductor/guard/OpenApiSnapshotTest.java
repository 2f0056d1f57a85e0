package dev.ductor.guard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code docs/openapi.json} is the document {@code /q/openapi} serves: the build generates the Java client of
 * {@code GeneratedClientTest} from it (no server runs at generate-test-sources), and a reader finds the API there
 * without starting one. After an API change, {@code -DopenapiWrite=true} on this test writes it anew.
 */
@QuarkusTest
@Tag("api")
class OpenApiSnapshotTest {

    static final Path SNAPSHOT = Path.of("docs", "openapi.json");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void docsOpenapiJsonIsTheServedDocument() throws Exception {
        JsonNode served = MAPPER.readTree(RestAssured.given().accept("application/json").get("/q/openapi?format=json")
                .then().statusCode(200).extract().asString());
        if (Boolean.getBoolean("openapiWrite")) {
            Files.writeString(SNAPSHOT, MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(served) + "\n");
        }
        assertEquals(served, MAPPER.readTree(Files.readString(SNAPSHOT)), SNAPSHOT + " differs from /q/openapi: run"
                + " ./mvnw test -Dinvoker.skip -Dtest=OpenApiSnapshotTest -DopenapiWrite=true and commit the file");
    }
}
