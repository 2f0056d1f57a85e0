package dev.ductor.console;

import dev.ductor.run.coordinator.Coordinator;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server side of the console over HTTP: the page fallback for deep links, and the read routes it added
 * (revisions, fleet, the runs list's idempotencyKey filter).
 */
@QuarkusTest
@Tag("api")
class ConsoleRoutesApiTest {

    private static final String GATED = "{\"nodes\": [{\"id\": \"gate\", \"type\": \"signal\", \"signal\": \"go\"}]}";

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Coordinator coordinator;

    @Test
    void everyConsolePagePathServesTheIndexAndAssetsAreFiles() {
        for (String path : List.of("/console", "/console/", "/console/runs", "/console/runs/" + UUID.randomUUID(),
                "/console/workflows/order.v2", "/console/signin")) {
            given().get(path).then().statusCode(200).contentType(containsString("text/html"))
                    .body(containsString("/console/js/app.js"));
        }
        given().get("/console/js/app.js").then().statusCode(200).contentType(containsString("javascript"));
        given().get("/console/css/console.css").then().statusCode(200).contentType(containsString("css"));
        given().get("/console/js/no-such-module.js").then().statusCode(404);
    }

    /**
     * The console holds a bearer token: it must not run a script it did not ship, nor be framed by another site
     * (clickjacking), nor have a file read as another type, nor leak its addresses (run ids) in a Referer.
     */
    @Test
    void theConsoleAndItsFilesCarrySecurityHeaders() {
        for (String path : List.of("/console", "/console/runs/" + UUID.randomUUID(), "/console/js/app.js", "/console/css/console.css")) {
            Response page = given().get(path);
            page.then().statusCode(200);
            String policy = page.header("Content-Security-Policy");
            assertTrue(policy != null && policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'")
                    && policy.contains("default-src 'self'") && !policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"),
                    path + ": Content-Security-Policy " + policy);
            assertEquals("nosniff", page.header("X-Content-Type-Options"), path);
            assertEquals("no-referrer", page.header("Referrer-Policy"), path);
            assertEquals("DENY", page.header("X-Frame-Options"), path);
        }
    }

    @Test
    void revisionsListNewestFirstAndOneCanBeRead() {
        Api api = new Api(issuer);
        String name = api.define("{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]}");
        api.as("admin").header("If-Match", "\"0\"")
                .body("{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}, {\"id\": \"b\", \"type\": \"task\", \"handler\": \"echo\", \"dependsOn\": [\"a\"]}]}")
                .put("/api/v1/workflows/{name}", name).then().statusCode(200);
        Response list = api.as("worker").get("/api/v1/workflows/{name}/revisions", name);
        list.then().statusCode(200);
        assertEquals(List.of(2, 1), list.jsonPath().getList("items.revision"));
        assertEquals(List.of("a", "b"), list.jsonPath().getList("items[0].nodes.id"));
        assertEquals(List.of("a"), api.as("client").get("/api/v1/workflows/{name}/revisions/1", name)
                .then().statusCode(200).extract().jsonPath().getList("nodes.id"));
        api.as("client").get("/api/v1/workflows/{name}/revisions/3", name).then().statusCode(404)
                .contentType(containsString("application/problem+json"));
        api.as("client").get("/api/v1/workflows/{name}/revisions/zero", name).then().statusCode(400)
                .contentType(containsString("application/problem+json"));
        new Api(issuer).as("admin").get("/api/v1/workflows/{name}/revisions", name).then().statusCode(404);
    }

    @Test
    void theRunListFindsARunByItsIdempotencyKey() {
        Api api = new Api(issuer);
        String name = api.define(GATED);
        String keyed = api.as("client").body("{\"idempotencyKey\": \"order-77\"}").post("/api/v1/workflows/{name}/runs", name)
                .then().statusCode(201).extract().path("runId");
        api.start(name);
        List<String> found = api.as("client").get("/api/v1/runs?idempotencyKey=order-77").then().statusCode(200)
                .extract().jsonPath().getList("items.runId");
        assertEquals(List.of(keyed), found);
        assertEquals(0, api.as("client").get("/api/v1/runs?idempotencyKey=nope").then().statusCode(200)
                .extract().jsonPath().getList("items").size());
    }

    @Test
    void theFleetShowsTiersRunningRunsAndForcedFailures() throws Exception {
        Api api = new Api(issuer);
        String name = api.define(GATED);
        String stuck = api.start(name);
        api.start(name);
        long seq = awaitWaitingSeq(api, stuck);
        assertTrue(coordinator.forceFail(UUID.fromString(stuck), "stuck", seq, List.of(), List.of()), "the verdict applies");

        Response fleet = api.as("client").get("/api/v1/fleet");
        fleet.then().statusCode(200);
        assertEquals(List.of("interactive", "standard", "bulk"), fleet.jsonPath().getList("tiers.tier"));
        assertEquals(1, fleet.jsonPath().getInt("runningRuns"));
        assertEquals(0, fleet.jsonPath().getInt("leasedTasks"));
        List<Map<String, Object>> forced = fleet.jsonPath().getList("forcedFailures");
        assertEquals(1, forced.size(), fleet.asString());
        assertEquals(stuck, forced.get(0).get("runId"));
        assertEquals("stuck", forced.get(0).get("reason"));
        assertEquals(name, forced.get(0).get("workflow"));
        assertEquals(0, new Api(issuer).as("client").get("/api/v1/fleet").jsonPath().getList("forcedFailures").size(),
                "another tenant sees none of it");
        given().get("/api/v1/fleet").then().statusCode(401);
    }

    private static long awaitWaitingSeq(Api api, String runId) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if ("WAITING".equals(api.run(runId).path("nodes.gate.state"))) {
                List<Integer> seqs = api.as("client").get("/api/v1/runs/{id}/history", runId).jsonPath().getList("seq");
                return seqs.get(seqs.size() - 1);
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the gate never waited");
    }
}
