package dev.ductor.api;

import dev.ductor.support.Api;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static dev.ductor.support.Api.problem;
import static dev.ductor.support.Api.unique;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every status code of PUT/GET /api/v1/pools/{name} and its events, through HTTP. */
@QuarkusTest
@Tag("api")
class PoolApiTest {

    @Inject
    DevTokenIssuer issuer;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
    }

    @Test
    void creatingAPoolAnswers201WithETagAndLocation() {
        String name = unique("gpu");

        Response created = api.putPool(name, "{\"capacity\": 3}");

        assertEquals(201, created.statusCode(), created::asString);
        assertEquals("\"1\"", created.header("ETag"));
        assertTrue(created.header("Location").endsWith("/api/v1/pools/" + name), created.header("Location"));
        JsonPath body = created.jsonPath();
        assertEquals(name, body.getString("name"));
        assertEquals(3, body.getInt("capacity"));
        assertFalse(body.getBoolean("paused"), "a new pool is not paused unless asked");
        assertEquals(1, body.getInt("version"));
        assertNotNull(body.getString("createdAt"));
    }

    @Test
    void aPoolMayBeCreatedPausedAndWithCapacityZero() {
        String name = unique("gpu");

        Response created = api.putPool(name, "{\"capacity\": 0, \"paused\": true}");

        assertEquals(201, created.statusCode(), created::asString);
        assertEquals(0, created.jsonPath().getInt("capacity"));
        assertTrue(created.jsonPath().getBoolean("paused"));
    }

    @Test
    void getReturnsThePoolWithItsETagToEveryRole() {
        String name = unique("gpu");
        api.createPool(name, 4, true);

        for (String role : List.of("admin", "operator", "client", "worker")) {
            Response got = api.as(role).get("/api/v1/pools/{name}", name);
            assertEquals(200, got.statusCode(), () -> role + ": " + got.asString());
            assertEquals("\"1\"", got.header("ETag"));
            assertEquals(4, got.jsonPath().getInt("capacity"));
            assertTrue(got.jsonPath().getBoolean("paused"));
            assertEquals(1, got.jsonPath().getInt("version"));
            api.as(role).get("/api/v1/pools/{name}/events", name).then().statusCode(200);
        }
    }

    @Test
    void theListHasTheTenantsPoolsByNameWithTheirVersionsAndNoOtherTenants() {
        assertEquals(List.of(), api.as("client").get("/api/v1/pools").then().statusCode(200)
                .extract().jsonPath().getList("items"), "a fresh tenant has no pools");
        api.createPool("b-pool", 2, false);
        api.createPool("a-pool", 3, true);
        api.updatePool("b-pool", "{\"capacity\": 5}");
        Api other = new Api(issuer);
        other.createPool("c-pool", 1, false);

        var list = api.as("operator").get("/api/v1/pools").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("a-pool", "b-pool"), list.getList("items.name"));
        assertEquals(List.of(1, 2), list.getList("items.version"));
        assertEquals(List.of(3, 5), list.getList("items.capacity"));
        assertEquals(List.of("c-pool"), other.as("worker").get("/api/v1/pools").then().statusCode(200)
                .extract().jsonPath().getList("items.name"));
        given().get("/api/v1/pools").then().statusCode(401);
    }

    @Test
    void anUnknownPoolIs404AndSoAreItsEvents() {
        String name = unique("missing");

        assertTrue(problem(api.getPool(name), 404).getString("detail").contains(name));
        problem(api.poolEvents(name), 404);
    }

    @Test
    void updatingWithTheCurrentIfMatchAppendsAndAnswers200WithTheNewETag() {
        String name = unique("gpu");
        api.createPool(name, 3, false);

        Response updated = api.putPool(name, "{\"capacity\": 5}", "\"1\"");

        assertEquals(200, updated.statusCode(), updated::asString);
        assertEquals("\"2\"", updated.header("ETag"));
        assertEquals(5, updated.jsonPath().getInt("capacity"));
        assertEquals(2, updated.jsonPath().getInt("version"));
        assertPool(name, 2, 5);

        // Both settings at once: two events, two versions. A bare number is accepted as If-Match too.
        Response both = api.putPool(name, "{\"capacity\": 1, \"paused\": true}", "2");
        assertEquals(200, both.statusCode(), both::asString);
        assertEquals("\"4\"", both.header("ETag"));
        assertTrue(both.jsonPath().getBoolean("paused"));
    }

    @Test
    void theEventsShowTheStreamInVersionOrder() {
        String name = unique("gpu");
        Instant before = Instant.now().minusSeconds(5);
        api.createPool(name, 3, false);
        api.updatePool(name, "{\"capacity\": 6}");
        api.updatePool(name, "{\"capacity\": 6, \"paused\": true}");
        api.updatePool(name, "{\"capacity\": 6, \"paused\": false}");

        Response events = api.poolEvents(name);

        assertEquals(200, events.statusCode(), events::asString);
        JsonPath stream = events.jsonPath();
        assertEquals(List.of(1, 2, 3, 4), stream.getList("version", Integer.class));
        assertEquals(List.of("PoolDefined", "PoolCapacityChanged", "PoolPaused", "PoolResumed"), stream.getList("type"));
        assertEquals(Map.of("capacity", 3, "paused", false), stream.getMap("[0].payload"));
        assertEquals(Map.of("from", 3, "to", 6), stream.getMap("[1].payload"));
        assertEquals("dev-admin", stream.getString("[0].recordedBy"));
        for (String at : stream.getList("recordedAt", String.class)) {
            assertTrue(Instant.parse(at).isAfter(before), at);
        }
    }

    @Test
    void sendingTheSameSettingsAgainAppendsNothingAndKeepsTheETag() {
        String name = unique("gpu");
        api.createPool(name, 3, false);

        Response same = api.putPool(name, "{\"capacity\": 3, \"paused\": false}", "\"1\"");

        assertEquals(200, same.statusCode(), same::asString);
        assertEquals("\"1\"", same.header("ETag"));
        assertEquals(1, api.poolEvents(name).jsonPath().getList("version").size());
    }

    @Test
    void leavingPausedOutKeepsThePoolPaused() {
        String name = unique("gpu");
        api.createPool(name, 3, true);

        Response updated = api.putPool(name, "{\"capacity\": 4}", "\"1\"");

        assertEquals(200, updated.statusCode(), updated::asString);
        assertTrue(updated.jsonPath().getBoolean("paused"), "a capacity change must not resume a paused pool");
    }

    @Test
    void whatAGetReturnsMayBeSentBack() {
        String name = unique("gpu");
        api.createPool(name, 3, false);
        Response got = api.getPool(name);
        String edited = got.asString().replace("\"capacity\":3", "\"capacity\":9");

        Response updated = api.putPool(name, edited, got.header("ETag"));

        assertEquals(200, updated.statusCode(), updated::asString);
        assertEquals(9, updated.jsonPath().getInt("capacity"));
    }

    @Test
    void updatingWithoutIfMatchIs428AndSavesNothing() {
        String name = unique("gpu");
        api.createPool(name, 3, false);

        JsonPath problem = problem(api.putPool(name, "{\"capacity\": 7}"), 428);

        assertTrue(problem.getString("detail").toLowerCase().contains("nothing was saved"), problem.prettify());
        assertUnchanged(name);
    }

    @Test
    void updatingWithAStaleIfMatchIs409WithCurrentAndRejectedAndSavesNothing() {
        String name = unique("gpu");
        api.createPool(name, 3, false);
        api.updatePool(name, "{\"capacity\": 4}");

        JsonPath problem = problem(api.putPool(name, "{\"capacity\": 9, \"paused\": true}", "\"1\""), 409);

        assertTrue(problem.getString("detail").toLowerCase().contains("not saved"), problem.prettify());
        assertFalse(problem.getBoolean("saved"));
        assertEquals(1, problem.getInt("expectedVersion"));
        assertEquals(2, problem.getInt("currentVersion"));
        assertEquals(2, problem.getInt("current.version"));
        assertEquals(4, problem.getInt("current.capacity"));
        assertEquals(9, problem.getInt("rejected.capacity"), "what was sent comes back as sent");
        assertTrue(problem.getBoolean("rejected.paused"));
        assertFalse(assertPool(name, 2, 4).getBoolean("paused"));
    }

    @Test
    void ifMatchOnAMissingPoolIs409AndCreatesNothing() {
        String name = unique("gpu");

        JsonPath problem = problem(api.putPool(name, "{\"capacity\": 3}", "\"1\""), 409);

        assertTrue(problem.getString("detail").toLowerCase().contains("not saved"), problem.prettify());
        assertTrue(problem.getString("detail").contains("does not exist"), problem.prettify());
        assertNull(problem.get("current"));
        assertEquals(3, problem.getInt("rejected.capacity"));
        problem(api.getPool(name), 404);
    }

    @Test
    void ifMatchStarOrGarbageIsRefused() {
        String name = unique("gpu");
        api.createPool(name, 3, false);

        for (String ifMatch : List.of("*", "garbage", "\"-1\"")) {
            problem(api.putPool(name, "{\"capacity\": 7}", ifMatch), 400);
        }
        assertUnchanged(name);
    }

    @Test
    void invalidBodiesAre400NamingTheFieldAndStoreNothing() {
        String name = unique("gpu");
        Map<String, String> bodies = Map.ofEntries(
                Map.entry("{}", "capacity"),
                Map.entry("{\"capacity\": null}", "capacity"),
                Map.entry("{\"capacity\": -1}", "capacity"),
                Map.entry("{\"capacity\": 100001}", "capacity"),
                Map.entry("{\"capacity\": 3000000000}", "capacity"),
                Map.entry("{\"capacity\": \"3\"}", "capacity"),
                Map.entry("{\"capacity\": 2.5}", "capacity"),
                Map.entry("{\"capacity\": 3, \"paused\": \"yes\"}", "paused"),
                Map.entry("{\"capacity\": 3, \"paused\": 1}", "paused"),
                Map.entry("{\"capacity\": 3, \"weight\": 2}", "weight"),
                Map.entry("{\"capacity\": 3, \"name\": \"other\"}", "name"));
        bodies.forEach((body, field) -> {
            JsonPath problem = problem(api.putPool(name, body), 400);
            assertEquals(field, problem.getString("field"), () -> body + " -> " + problem.prettify());
        });
        for (String body : List.of("[3]", "3", "\"capacity\"", "not json", "{\"capacity\": ")) {
            problem(api.putPool(name, body), 400);
        }
        problem(api.getPool(name), 404);
    }

    @Test
    void theBoundsOfCapacityAreAccepted() {
        api.createPool(unique("gpu"), 0, false);
        api.createPool(unique("gpu"), 100_000, false);
    }

    @Test
    void aBadPoolNameIs400() {
        problem(api.putPool("bad!name", "{\"capacity\": 3}"), 400);
        problem(api.putPool("x".repeat(101), "{\"capacity\": 3}"), 400);
        problem(api.getPool("bad!name"), 400);
    }

    @Test
    void withoutATokenEveryPoolRouteIs401() {
        String name = unique("gpu");
        api.createPool(name, 3, false);

        problem(given().contentType(ContentType.JSON).body("{\"capacity\": 1}").put("/api/v1/pools/{name}", unique("gpu")), 401);
        problem(given().contentType(ContentType.JSON).header("If-Match", "\"1\"").body("{\"capacity\": 1}")
                .put("/api/v1/pools/{name}", name), 401);
        problem(given().get("/api/v1/pools/{name}", name), 401);
        problem(given().get("/api/v1/pools/{name}/events", name), 401);
        problem(given().header("Authorization", "Bearer garbage").get("/api/v1/pools/{name}", name), 401);
        assertUnchanged(name);
    }

    @Test
    void onlyAnAdminMayPutAPool() {
        String name = unique("gpu");
        api.createPool(name, 3, false);

        for (String role : List.of("operator", "client", "worker")) {
            problem(api.as(role).body("{\"capacity\": 1}").put("/api/v1/pools/{name}", unique("gpu")), 403);
            problem(api.as(role).header("If-Match", "\"1\"").body("{\"capacity\": 1}").put("/api/v1/pools/{name}", name), 403);
        }
        assertUnchanged(name);
    }

    @Test
    void poolsBelongToTheirTenant() {
        String name = unique("gpu");
        api.createPool(name, 3, false);
        Api other = new Api(issuer);

        problem(other.getPool(name), 404);
        problem(other.poolEvents(name), 404);
        // The same name is another tenant's own pool, created from scratch.
        Response theirs = other.putPool(name, "{\"capacity\": 8}");
        assertEquals(201, theirs.statusCode(), theirs::asString);
        assertEquals("\"1\"", theirs.header("ETag"));
        assertUnchanged(name);
    }

    /** The pool as created by the tests that refuse an edit: version 1, capacity 3, one event. */
    private void assertUnchanged(String name) {
        assertPool(name, 1, 3);
        assertEquals(1, api.poolEvents(name).jsonPath().getList("version").size());
    }

    /** Reads the pool back: a 200 whose ETag is {@code version} and whose capacity is {@code capacity}. */
    private JsonPath assertPool(String name, int version, int capacity) {
        Response got = api.getPool(name);
        assertEquals(200, got.statusCode(), got::asString);
        assertEquals("\"" + version + "\"", got.header("ETag"));
        assertEquals(capacity, got.jsonPath().getInt("capacity"));
        return got.jsonPath();
    }
}
