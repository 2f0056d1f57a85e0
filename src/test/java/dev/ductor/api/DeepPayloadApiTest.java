package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import dev.ductor.support.Fixtures;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A payload may nest 100 levels, well inside the 500 any JSON may: what Ductor stores wraps it deeper (a node's output
 * inside the node states, a child run's output inside its parent's), and every stored document must read back, or the
 * run could be neither advanced nor shown.
 */
@QuarkusTest
@Tag("api")
class DeepPayloadApiTest {

    private static final String ECHO = "{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"echo\"}]}";

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    private static String nested(int levels) {
        return "{\"a\":".repeat(levels - 1) + "[1]" + "}".repeat(levels - 1);
    }

    @Test
    void aPayloadDeeperThan100LevelsIsRefusedNamingTheField() {
        Api api = new Api(issuer);
        Response refused = api.as("client").body("{\"type\": \"x\", \"idempotencyKey\": \"k-" + UUID.randomUUID() + "\", \"payload\": "
                + nested(101) + "}").post("/api/v1/events");
        JsonPath problem = Api.problem(refused, 400);
        assertEquals("payload", problem.getString("field"), problem.prettify());
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_event WHERE tenant = ?1", api.tenant));
    }

    @Test
    void aRunWhoseInputNests100LevelsRunsAndReadsBack() {
        Api api = new Api(issuer);
        String runId = api.start(api.define(ECHO), "{\"input\": " + nested(100) + "}");
        assertEquals("SUCCEEDED", api.awaitStatus(runId, "SUCCEEDED"), () -> api.run(runId).asString());
        api.run(runId).then().statusCode(200);
        api.as("client").get("/api/v1/runs").then().statusCode(200);
    }
}
