package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.ductor.support.Api.definition;
import static dev.ductor.support.Api.problem;
import static dev.ductor.support.Api.task;
import static dev.ductor.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DELETE of a pool and of a rule is an edit like a PUT: If-Match required (428), a stale one is a 409 with current and
 * rejected that deletes nothing, another tenant's is a 404; a delete ends the stream's current life with an event, and a
 * PUT without If-Match creates the resource anew on the same stream.
 */
@QuarkusTest
@Tag("api")
class PoolAndRuleDeleteApiTest {

    @Inject
    DevTokenIssuer issuer;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
    }

    @Test
    void aPoolIsDeletedOnlyWithTheCurrentVersionAndCanBeCreatedAgain() {
        String pool = unique("doomed");
        api.createPool(pool, 3, false);
        api.updatePool(pool, "{\"capacity\": 4}");

        problem(delete("pools", pool, null), 428);
        JsonPath stale = problem(delete("pools", pool, "\"1\""), 409);
        assertEquals(2, stale.getInt("current.version"), "the 409 carries the pool as it is");
        assertEquals(Map.of("deleting", pool), stale.getMap("rejected"));
        assertTrue(stale.getString("detail").contains("NOT saved"), stale.getString("detail"));
        assertEquals(404, new Api(issuer).as("admin").header("If-Match", "\"2\"").delete("/api/v1/pools/{n}", pool).statusCode(),
                "another tenant's pool is not there for it");
        assertEquals(200, api.getPool(pool).statusCode(), "nothing was deleted so far");

        JsonPath deleted = delete("pools", pool, "\"2\"").then().statusCode(200).extract().jsonPath();
        assertEquals(pool, deleted.getString("name"));
        assertTrue(deleted.getBoolean("deleted"));
        assertEquals(3, deleted.getInt("version"));
        problem(api.getPool(pool), 404);
        assertFalse(api.as("client").get("/api/v1/pools").jsonPath().getList("items.name").contains(pool));
        problem(delete("pools", pool, "\"3\""), 404);

        Response again = api.putPool(pool, "{\"capacity\": 7}");
        assertEquals(201, again.statusCode(), again::asString);
        assertEquals("\"4\"", again.header("ETag"), "the stream goes on after its PoolDeleted");
        assertEquals(7, api.getPool(pool).jsonPath().getInt("capacity"));
        assertEquals(List.of("PoolDefined", "PoolCapacityChanged", "PoolDeleted", "PoolDefined"),
                api.poolEvents(pool).jsonPath().getList("type"));
    }

    @Test
    void aRuleIsDeletedOnlyWithTheCurrentVersionStopsMatchingAndCanBeCreatedAgain() {
        String workflow = unique("ruled");
        api.createWorkflow(workflow, definition(task("one", "noop")));
        String rule = unique("rule");
        String type = unique("evt");
        String body = "{\"on\": \"" + type + "\", \"start\": {\"workflow\": \"" + workflow + "\"}}";
        api.as("admin").body(body).put("/api/v1/rules/{n}", rule).then().statusCode(201);

        problem(delete("rules", rule, null), 428);
        JsonPath stale = problem(delete("rules", rule, "\"7\""), 409);
        assertEquals(1, stale.getInt("current.version"));
        assertEquals(Map.of("deleting", rule), stale.getMap("rejected"));
        problem(api.as("worker").header("If-Match", "\"1\"").delete("/api/v1/rules/{n}", rule), 403);

        assertEquals(2, delete("rules", rule, "\"1\"").then().statusCode(200).extract().jsonPath().getInt("version"));
        problem(api.as("client").get("/api/v1/rules/{n}", rule), 404);
        JsonPath receipt = api.as("client").body("{\"type\": \"" + type + "\", \"idempotencyKey\": \"" + unique("k") + "\"}")
                .post("/api/v1/events").then().extract().jsonPath();
        assertEquals(List.of(), receipt.getList("started"), "a deleted rule starts nothing: " + receipt.prettify());

        api.as("admin").body(body).put("/api/v1/rules/{n}", rule).then().statusCode(201).header("ETag", "\"3\"");
    }

    private Response delete(String collection, String name, String ifMatch) {
        var request = api.as("admin");
        if (ifMatch != null) {
            request = request.header("If-Match", ifMatch);
        }
        return request.delete("/api/v1/" + collection + "/{n}", name);
    }
}
