package dev.ductor.guard;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code /q/openapi}, as client generators read it, passes the lint ({@link OpenApiLint}: Redocly's recommended rules
 * that matter) with no error; its warnings are printed and counted. Whatever operation, schema or example is added
 * later is checked the same way. The document is also written to {@code target/openapi.json} for a reader.
 */
@QuarkusTest
@Tag("api")
class OpenApiLintTest {

    @Test
    void theDocumentPassesTheLintWithoutErrors() throws Exception {
        String document = RestAssured.given().accept("application/json").get("/q/openapi?format=json")
                .then().statusCode(200).extract().asString();
        Files.writeString(Path.of("target", "openapi.json"), document);
        OpenApiLint.Report report = OpenApiLint.lint(document);
        report.warnings().forEach(warning -> System.out.println("[openapi lint] warning " + warning));
        System.out.println("[openapi lint] errors=" + report.errors().size() + " warnings=" + report.warnings().size());
        if (!report.errors().isEmpty()) {
            fail(report.errors().size() + " lint errors in /q/openapi:\n  "
                    + String.join("\n  ", report.errors().stream().map(Object::toString).toList()));
        }
    }
}
