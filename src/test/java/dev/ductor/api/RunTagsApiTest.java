package dev.ductor.api;

import dev.ductor.config.Tiers;
import dev.ductor.run.commit.RunStarter;
import dev.ductor.run.commit.StartRequest;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static dev.ductor.support.Api.problem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs found by business data: tags given at start are stored with the run, shown by GET and the list, and found
 * with {@code GET /runs?tag=key:value} (several tags: all of them) and by the bulk actions' filter; bad tags are a 400
 * that names the tag and start nothing.
 */
@QuarkusTest
@Tag("api")
class RunTagsApiTest {

    /** A run that stays RUNNING until signalled, so the status filter has something to tell apart. */
    private static final String WAITS = "{\"nodes\": [{\"id\": \"wait\", \"type\": \"signal\", \"signal\": \"go\"}]}";

    @Inject
    DevTokenIssuer issuer;

    @Inject
    RunStarter starter;

    Api api;
    String workflow;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
        workflow = api.define(WAITS);
    }

    @Test
    void tagsGivenAtStartAreShownByTheRunAndTheList() {
        Response started = api.startRun(workflow, "{\"tags\": {\"customer\": \"c-42\", \"channel\": \"web\"}}");
        assertEquals(201, started.statusCode(), started.asString());
        assertEquals(Map.of("customer", "c-42", "channel", "web"), started.jsonPath().getMap("tags"));
        String runId = started.jsonPath().getString("runId");

        assertEquals(Map.of("customer", "c-42", "channel", "web"), api.run(runId).jsonPath().getMap("tags"));
        JsonPath page = list(Map.of("workflow", workflow));
        assertEquals(Map.of("customer", "c-42", "channel", "web"), page.getMap("items[0].tags"));

        String untagged = api.start(workflow, "{\"tags\": {}}");
        assertFalse(api.run(untagged).asString().contains("\"tags\""), "a run without tags shows none");
        JsonPath page2 = list(Map.of("workflow", workflow));
        assertEquals(untagged, page2.getString("items[0].runId"));
        assertFalse(page2.getMap("items[0]").containsKey("tags"), "nor does its summary");
    }

    @Test
    void oneTagFindsTheRunsCarryingItAndTwoTagsFindThoseCarryingBoth() {
        String webOrder = api.start(workflow, "{\"tags\": {\"customer\": \"c-42\", \"channel\": \"web\"}}");
        String phoneOrder = api.start(workflow, "{\"tags\": {\"customer\": \"c-42\", \"channel\": \"phone\"}}");
        String otherCustomer = api.start(workflow, "{\"tags\": {\"customer\": \"c-43\", \"channel\": \"web\"}}");
        api.start(workflow);

        assertEquals(List.of(phoneOrder, webOrder), Api.ids(list(Map.of("tag", List.of("customer:c-42")))));
        assertEquals(List.of(webOrder), Api.ids(list(Map.of("tag", List.of("customer:c-42", "channel:web")))));
        assertEquals(List.of(otherCustomer, webOrder), Api.ids(list(Map.of("tag", List.of("channel:web")))));
        assertEquals(List.of(), Api.ids(list(Map.of("tag", List.of("customer:c-44")))));
        // A value may hold colons: the key ends at the first.
        String withColon = api.start(workflow, "{\"tags\": {\"url\": \"https://shop.example/o/1\"}}");
        assertEquals(List.of(withColon), Api.ids(list(Map.of("tag", List.of("url:https://shop.example/o/1")))));
        // Another tenant's runs with the same tag are not found.
        assertEquals(List.of(), Api.ids(new Api(issuer).as("client").queryParam("tag", "customer:c-42")
                .get("/api/v1/runs").then().statusCode(200).extract().jsonPath()));
    }

    @Test
    void theTagFilterCombinesWithTheOtherFiltersAndPaging() {
        List<String> tagged = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            tagged.add(0, api.start(workflow, "{\"tags\": {\"batch\": \"b-7\"}}")); // newest first, as the list
        }
        api.start(workflow);
        String elsewhere = api.define(WAITS);
        api.start(elsewhere, "{\"tags\": {\"batch\": \"b-7\"}}");
        api.as("client").body("{\"name\": \"go\", \"idempotencyKey\": \"go-1\"}")
                .post("/api/v1/runs/{id}/signals", tagged.get(0)).then().statusCode(202);
        api.awaitTerminal(tagged.get(0));

        List<String> seen = new ArrayList<>();
        String cursor = null;
        do {
            Map<String, Object> query = new TreeMap<>(Map.of("workflow", workflow, "tag", List.of("batch:b-7"), "limit", 2));
            if (cursor != null) {
                query.put("cursor", cursor);
            }
            JsonPath page = list(query);
            seen.addAll(Api.ids(page));
            cursor = page.getString("nextCursor");
        } while (cursor != null);
        assertEquals(tagged, seen, "three pages of two, newest first, none skipped or repeated");

        assertEquals(tagged.subList(1, 5), Api.ids(list(Map.of("tag", List.of("batch:b-7"), "status", "RUNNING",
                "workflow", workflow))));
        assertEquals(List.of(tagged.get(0)), Api.ids(list(Map.of("tag", List.of("batch:b-7"), "status", "SUCCEEDED"))));
    }

    @Test
    void aBadTagFilterIs400() {
        for (String bad : List.of("customer", ":c-42", "customer:", "cust omer:c-42", "k".repeat(65) + ":v",
                "k:" + "v".repeat(257))) {
            JsonPath problem = problem(api.as("client").queryParam("tag", bad).get("/api/v1/runs"), 400);
            assertEquals("tag", problem.getString("field"), bad);
        }
        JsonPath twice = problem(api.as("client").queryParam("tag", "customer:c-1", "customer:c-2").get("/api/v1/runs"), 400);
        assertTrue(twice.getString("detail").contains("customer"), twice.prettify());
    }

    @Test
    void badTagsAre400NamingTheTagAndStartNothing() {
        StringBuilder seventeen = new StringBuilder("{");
        IntStream.range(0, 17).forEach(i -> seventeen.append(i == 0 ? "" : ", ").append("\"k").append(i).append("\": \"v\""));
        assertEquals("tags", refused("{\"tags\": " + seventeen + "}}"));
        assertEquals("tags.bad key", refused("{\"tags\": {\"good\": \"x\", \"bad key\": \"x\"}}"));
        assertEquals("tags.k:colon", refused("{\"tags\": {\"k:colon\": \"x\"}}"));
        assertEquals("tags." + "k".repeat(65), refused("{\"tags\": {\"" + "k".repeat(65) + "\": \"x\"}}"));
        assertEquals("tags.", refused("{\"tags\": {\"\": \"x\"}}"));
        assertEquals("tags.customer", refused("{\"tags\": {\"customer\": \"\"}}"));
        assertEquals("tags.customer", refused("{\"tags\": {\"customer\": \"" + "v".repeat(257) + "\"}}"));
        assertEquals("tags.customer", refused("{\"tags\": {\"customer\": 42}}"));
        assertEquals("tags.customer", refused("{\"tags\": {\"customer\": true}}"));
        assertEquals("tags.customer", refused("{\"tags\": {\"customer\": null}}"));
        assertEquals("tags.customer", refused("{\"tags\": {\"customer\": {\"id\": 42}}}"));
        assertEquals("tags", refused("{\"tags\": [\"customer:c-42\"]}"));
        assertEquals("tags", refused("{\"tags\": \"customer:c-42\"}"));

        assertEquals(List.of(), Api.ids(list(Map.of())), "nothing of the refused starts was stored");
        // The limits themselves are fine.
        StringBuilder sixteen = new StringBuilder("{");
        IntStream.range(0, 16).forEach(i -> sixteen.append(i == 0 ? "" : ", ").append("\"k").append(i).append("\": \"v\""));
        api.start(workflow, "{\"tags\": " + sixteen + "}}");
        api.start(workflow, "{\"tags\": {\"" + "K-._9".repeat(12) + "abcd\": \"" + "v".repeat(256) + "\"}}");
        assertEquals(2, Api.ids(list(Map.of())).size());
    }

    @Test
    void tagsAreOfTheStartsIdempotencyFingerprint() {
        String body = "{\"idempotencyKey\": \"order-1\", \"tags\": {\"customer\": \"c-42\", \"channel\": \"web\"}}";
        String runId = api.start(workflow, body);
        Response same = api.startRun(workflow, "{\"tags\": {\"channel\": \"web\", \"customer\": \"c-42\"}, \"idempotencyKey\": \"order-1\"}");
        assertEquals(200, same.statusCode(), "the same tags in another order are the same request: " + same.asString());
        assertEquals(runId, same.jsonPath().getString("runId"));
        assertEquals(Map.of("customer", "c-42", "channel", "web"), same.jsonPath().getMap("tags"));

        JsonPath other = problem(api.startRun(workflow, "{\"idempotencyKey\": \"order-1\", \"tags\": {\"customer\": \"c-43\"}}"), 422);
        assertEquals("order-1", other.getString("idempotencyKey"));
        problem(api.startRun(workflow, "{\"idempotencyKey\": \"order-1\"}"), 422);

        api.start(workflow, "{\"idempotencyKey\": \"order-2\"}");
        problem(api.startRun(workflow, "{\"idempotencyKey\": \"order-2\", \"tags\": {\"customer\": \"c-42\"}}"), 422);
        assertEquals(200, api.startRun(workflow, "{\"idempotencyKey\": \"order-2\", \"tags\": {}}").statusCode(),
                "no tags and empty tags are one request");
        assertEquals(2, Api.ids(list(Map.of())).size());
    }

    /**
     * Both ways a start is written carry its tags: the transactional multi-row INSERT (RunStarter#startAll, a workflow's
     * first start in this JVM) and the group of prepared starts in one self-committing statement (RunRows#START).
     */
    @Test
    void theTransactionalInsertAndTheGroupedStartBothStoreTags() throws Exception {
        RunStarter.Started direct = starter.start(api.tenant, workflow, new StartRequest(null, null, Tiers.DEFAULT, null,
                new TreeMap<>(Map.of("path", "transactional"))));
        assertEquals(Map.of("path", "transactional"), api.run(direct.run().runId().toString()).jsonPath().getMap("tags"));

        List<CompletableFuture<Response>> burst = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String body = "{\"tags\": {\"path\": \"grouped\", \"n\": \"" + i + "\"}}";
            burst.add(CompletableFuture.supplyAsync(() -> api.startRun(workflow, body)));
        }
        for (int i = 0; i < burst.size(); i++) {
            Response started = burst.get(i).get();
            assertEquals(201, started.statusCode(), started.asString());
            String runId = started.jsonPath().getString("runId");
            assertEquals(Map.of("path", "grouped", "n", String.valueOf(i)), api.run(runId).jsonPath().getMap("tags"));
        }
        assertEquals(20, Api.ids(list(Map.of("tag", List.of("path:grouped"), "limit", 50))).size());
        assertEquals(1, Api.ids(list(Map.of("tag", List.of("path:grouped", "n:7")))).size());
    }

    @Test
    void theBulkActionsFilterMatchesOnTags() {
        String a = api.start(workflow, "{\"tags\": {\"customer\": \"c-42\", \"channel\": \"web\"}}");
        String b = api.start(workflow, "{\"tags\": {\"customer\": \"c-42\", \"channel\": \"phone\"}}");
        api.start(workflow, "{\"tags\": {\"customer\": \"c-43\"}}");
        api.start(workflow);

        JsonPath one = bulk("{\"action\": \"cancel\", \"filter\": {\"tag\": \"customer:c-42\"}, \"dryRun\": true}")
                .then().statusCode(200).extract().jsonPath();
        assertEquals(2, one.getInt("matched"));
        assertEquals(Set.of(a, b), Set.copyOf(one.getList("sample", String.class)));
        JsonPath both = bulk("{\"action\": \"cancel\", \"filter\": {\"tag\": [\"customer:c-42\", \"channel:web\"],"
                + " \"workflow\": \"" + workflow + "\"}, \"dryRun\": true}").then().statusCode(200).extract().jsonPath();
        assertEquals(1, both.getInt("matched"));
        assertEquals(List.of(a), both.getList("sample", String.class));

        assertEquals("filter.tag", problem(bulk("{\"action\": \"cancel\", \"filter\": {\"tag\": \"no-colon\"}}"), 400)
                .getString("field"));
        assertEquals("filter.tag", problem(bulk("{\"action\": \"cancel\", \"filter\": {\"tag\": [1]}}"), 400).getString("field"));
        assertEquals("filter.tag", problem(bulk("{\"action\": \"cancel\", \"filter\": {\"tag\": []}}"), 400).getString("field"));

        Response job = bulk("{\"action\": \"cancel\", \"filter\": {\"tag\": \"channel:phone\"}}");
        assertEquals(202, job.statusCode(), job.asString());
        assertEquals(1, job.jsonPath().getInt("matched"));
        assertEquals("CANCELLED", api.awaitTerminal(b).getString("status"));
        assertEquals("RUNNING", api.run(a).jsonPath().getString("status"));
    }

    private String refused(String body) {
        return problem(api.startRun(workflow, body), 400).getString("field");
    }

    private Response bulk(String body) {
        return api.as("operator").body(body).post("/api/v1/bulk-actions");
    }

    private JsonPath list(Map<String, ?> query) {
        RequestSpecification request = api.as("client");
        query.forEach((name, value) -> {
            if (value instanceof List<?> values) {
                request.queryParam(name, values);
            } else {
                request.queryParam(name, value);
            }
        });
        Response page = request.get("/api/v1/runs");
        assertEquals(200, page.statusCode(), page.asString());
        return page.jsonPath();
    }
}
