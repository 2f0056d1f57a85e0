package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code POST /api/v1/events}: rules start and signal runs, once per event however often it is sent. */
@QuarkusTest
@Tag("api")
class EventApiTest {

    /** Waits for the signal "paid", then one task: the run finishes only when the signal arrives. */
    private static final String AWAITS_PAYMENT = "{\"nodes\": [{\"id\": \"paid\", \"type\": \"signal\", \"signal\": \"paid\"},"
            + " {\"id\": \"ship\", \"type\": \"task\", \"handler\": \"noop\", \"dependsOn\": [\"paid\"]}]}";
    private static final String ONE_TASK = "{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]}";

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    private Api api;

    private Api api() {
        if (api == null) {
            api = new Api(issuer);
        }
        return api;
    }

    private String rule(String body) {
        String name = fixtures.uniqueName("rule");
        Response created = api().as("admin").body(body).put("/api/v1/rules/{name}", name);
        assertEquals(201, created.statusCode(), created::asString);
        return name;
    }

    private Response send(String body) {
        return api().as("client").body(body).post("/api/v1/events");
    }

    private static String event(String type, String key, String payload, String idempotencyKey) {
        return "{\"type\": \"" + type + "\"" + (key == null ? "" : ", \"key\": \"" + key + "\"")
                + (payload == null ? "" : ", \"payload\": " + payload) + ", \"idempotencyKey\": \"" + idempotencyKey + "\"}";
    }

    private static String fresh() {
        return "evt-" + UUID.randomUUID();
    }

    private long runsOfTenant() {
        return fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE tenant = ?1", api().tenant);
    }

    private JsonPath awaitStatus(String runId, String wanted) throws InterruptedException {
        String status = api().awaitStatus(runId, wanted);
        assertEquals(wanted, status, () -> api().run(runId).asString());
        return api().run(runId).jsonPath();
    }

    // ---- start -------------------------------------------------------------------------------------------

    @Test
    void aMatchingEventStartsOneRunWithTheMappedInputCorrelatedByTheEventsKey() throws Exception {
        String workflow = api().define(ONE_TASK);
        String rule = rule("{\"on\": \"order.created\", \"match\": {\"country\": \"DE\", \"customer.tier\": \"gold\"},"
                + " \"start\": {\"workflow\": \"" + workflow + "\", \"tier\": \"interactive\","
                + " \"input\": {\"order\": \"$.id\", \"ref\": \"$key\", \"kind\": \"$type\", \"all\": \"$\", \"fixed\": [1, \"$$x\"]}}}");
        String key = fresh();
        String payload = "{\"id\": 7, \"country\": \"DE\", \"customer\": {\"tier\": \"gold\"}}";
        Response response = send(event("order.created", "order-7", payload, key));
        assertEquals(202, response.statusCode(), response::asString);
        JsonPath receipt = response.jsonPath();
        assertFalse(receipt.getBoolean("duplicate"));
        assertEquals("order.created", receipt.getString("type"));
        assertEquals("order-7", receipt.getString("key"));
        assertEquals(List.of(rule), receipt.getList("started.rule"));
        assertEquals(List.of(workflow), receipt.getList("started.workflow"));
        assertEquals(List.of(), receipt.getList("signalled"));
        assertEquals(List.of(), receipt.getList("skipped"));
        String runId = receipt.getString("started[0].runId");

        JsonPath run = awaitStatus(runId, "SUCCEEDED");
        assertEquals(workflow, run.getString("workflow"));
        assertEquals("interactive", run.getString("tier"));
        assertEquals(fixtures.json("{\"order\": 7, \"ref\": \"order-7\", \"kind\": \"order.created\", \"all\": " + payload
                + ", \"fixed\": [1, \"$x\"]}"), fixtures.json(api().run(runId).asString()).get("input"));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE run_id = CAST(?1 AS uuid) AND correlation_key = 'order-7'"
                + " AND idempotency_key = ?2", runId, "event:" + key + ":" + rule));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_event WHERE tenant = ?1 AND idempotency_key = ?2 AND outcome IS NOT NULL",
                api().tenant, key));
    }

    @Test
    void eventsThatDoNotMatchStartNothing() {
        String workflow = api().define(ONE_TASK);
        rule("{\"on\": \"order.created\", \"match\": {\"country\": \"DE\"}, \"start\": {\"workflow\": \"" + workflow + "\"}}");
        rule("{\"on\": \"order.created\", \"match\": {\"country\": \"DE\"}, \"start\": {\"workflow\": \"" + workflow + "\"}, \"enabled\": false}");
        for (String body : List.of(
                event("order.updated", "k", "{\"country\": \"DE\"}", fresh()),
                event("Order.Created", "k", "{\"country\": \"DE\"}", fresh()),
                event("order.created", "k", "{\"country\": \"FR\"}", fresh()),
                event("order.created", "k", "{\"country\": \"de\"}", fresh()),
                event("order.created", "k", "{\"address\": {\"country\": \"DE\"}}", fresh()),
                event("order.created", "k", "{}", fresh()),
                event("order.created", "k", null, fresh()))) {
            Response response = send(body);
            assertEquals(202, response.statusCode(), response::asString);
            assertEquals(List.of(), response.jsonPath().getList("started"), body);
            assertEquals(List.of(), response.jsonPath().getList("skipped"), body);
        }
        assertEquals(0, runsOfTenant());
        // Another tenant's event of the same type does not see this tenant's rules.
        Api other = new Api(issuer);
        Response foreign = other.as("client").body(event("order.created", "k", "{\"country\": \"DE\"}", fresh())).post("/api/v1/events");
        assertEquals(202, foreign.statusCode());
        assertEquals(List.of(), foreign.jsonPath().getList("started"));
        assertEquals(0, runsOfTenant());
    }

    @Test
    void everyMatchingRuleActsInNameOrderAndOneThatCannotIsReportedAsSkipped() {
        String workflow = api().define(ONE_TASK);
        String start = "{\"on\": \"t\", \"start\": {\"workflow\": \"" + workflow + "\"}}";
        String b = "b-" + UUID.randomUUID().toString().substring(0, 8);
        String a = "a-" + b.substring(2);
        String c = "c-" + b.substring(2);
        assertEquals(201, api().as("admin").body(start).put("/api/v1/rules/{name}", b).statusCode());
        assertEquals(201, api().as("admin").body(start).put("/api/v1/rules/{name}", a).statusCode());
        assertEquals(201, api().as("admin").body("{\"on\": \"t\", \"start\": {\"workflow\": \"no-such-workflow\"}}")
                .put("/api/v1/rules/{name}", c).statusCode());
        JsonPath receipt = send(event("t", null, "{}", fresh())).then().statusCode(202).extract().jsonPath();
        assertEquals(List.of(a, b), receipt.getList("started.rule"));
        assertEquals(2, Set.copyOf(receipt.getList("started.runId")).size());
        assertEquals(List.of(c), receipt.getList("skipped.rule"));
        assertTrue(receipt.getString("skipped[0].reason").contains("no-such-workflow"), receipt.prettify());
        assertEquals(2, runsOfTenant());
    }

    @Test
    void aRuleStartsTheWorkflowsCurrentRevisionAndFollowsItsOwnEdits() {
        String first = api().define(ONE_TASK);
        String second = api().define(ONE_TASK);
        String rule = rule("{\"on\": \"t\", \"start\": {\"workflow\": \"" + first + "\"}}");
        assertEquals(List.of(first), send(event("t", null, null, fresh())).jsonPath().getList("started.workflow"));
        assertEquals(200, api().as("admin").header("If-Match", "\"1\"").body("{\"on\": \"t\", \"start\": {\"workflow\": \"" + second + "\"}}")
                .put("/api/v1/rules/{name}", rule).statusCode());
        assertEquals(List.of(second), send(event("t", null, null, fresh())).jsonPath().getList("started.workflow"));
        assertEquals(200, api().as("admin").header("If-Match", "\"2\"").body("{\"on\": \"t\", \"start\": {\"workflow\": \"" + second + "\"}, \"enabled\": false}")
                .put("/api/v1/rules/{name}", rule).statusCode());
        assertEquals(List.of(), send(event("t", null, null, fresh())).jsonPath().getList("started"));
        assertEquals(2, runsOfTenant());
    }

    // ---- signal ------------------------------------------------------------------------------------------

    @Test
    void aSignalRuleSignalsTheRunningRunsWhoseCorrelationKeyIsTheEventsKey() throws Exception {
        String workflow = api().define(AWAITS_PAYMENT);
        String mine = api().as("client").body("{\"correlationKey\": \"order-9\"}").post("/api/v1/workflows/{name}/runs", workflow)
                .then().statusCode(201).extract().path("runId");
        String alsoMine = api().as("client").body("{\"correlationKey\": \"order-9\", \"idempotencyKey\": \"second\"}")
                .post("/api/v1/workflows/{name}/runs", workflow).then().statusCode(201).extract().path("runId");
        String someoneElses = api().as("client").body("{\"correlationKey\": \"order-10\"}").post("/api/v1/workflows/{name}/runs", workflow)
                .then().statusCode(201).extract().path("runId");
        String uncorrelated = api().start(workflow);
        String rule = rule("{\"on\": \"payment.received\", \"match\": {\"status\": \"ok\"},"
                + " \"signal\": {\"name\": \"paid\", \"payload\": {\"amount\": \"$.amount\", \"order\": \"$key\"}}}");

        Response response = send(event("payment.received", "order-9", "{\"status\": \"ok\", \"amount\": 12.5}", fresh()));
        assertEquals(202, response.statusCode(), response::asString);
        JsonPath receipt = response.jsonPath();
        assertEquals(List.of(), receipt.getList("started"));
        assertEquals(List.of(rule, rule), receipt.getList("signalled.rule"));
        assertEquals(Set.of(mine, alsoMine), Set.copyOf(receipt.getList("signalled.runId")));

        for (String runId : List.of(mine, alsoMine)) {
            JsonPath run = awaitStatus(runId, "SUCCEEDED");
            assertEquals(12.5f, run.getFloat("nodes.paid.output.amount"));
            assertEquals("order-9", run.getString("nodes.paid.output.order"));
        }
        assertEquals("RUNNING", api().run(someoneElses).path("status"));
        assertEquals("RUNNING", api().run(uncorrelated).path("status"));
    }

    @Test
    void aRunARuleStartedIsSignalledByALaterEventWithTheSameKey() throws Exception {
        String workflow = api().define(AWAITS_PAYMENT);
        rule("{\"on\": \"order.created\", \"start\": {\"workflow\": \"" + workflow + "\"}}");
        rule("{\"on\": \"payment.received\", \"signal\": {\"name\": \"paid\"}}");
        String runId = send(event("order.created", "order-1", "{\"id\": 1}", fresh())).then().statusCode(202)
                .extract().path("started[0].runId");
        assertEquals("RUNNING", api().run(runId).path("status"));
        JsonPath receipt = send(event("payment.received", "order-1", "{\"amount\": 3}", fresh())).then().statusCode(202)
                .extract().jsonPath();
        assertEquals(List.of(runId), receipt.getList("signalled.runId"));
        JsonPath run = awaitStatus(runId, "SUCCEEDED");
        assertEquals(3, run.getInt("nodes.paid.output.amount"), "the default signal payload is the whole event payload");
    }

    @Test
    void aSignalRuleWithNothingToSignalIsReportedAsSkipped() throws Exception {
        String workflow = api().define(ONE_TASK);
        String rule = rule("{\"on\": \"payment.received\", \"signal\": {\"name\": \"paid\"}}");
        JsonPath noKey = send(event("payment.received", null, "{}", fresh())).then().statusCode(202).extract().jsonPath();
        assertEquals(List.of(rule), noKey.getList("skipped.rule"));
        assertTrue(noKey.getString("skipped[0].reason").contains("no key"), noKey.prettify());
        JsonPath nobody = send(event("payment.received", "order-404", "{}", fresh())).then().statusCode(202).extract().jsonPath();
        assertEquals(List.of(), nobody.getList("signalled"));
        assertTrue(nobody.getString("skipped[0].reason").contains("order-404"), nobody.prettify());
        // A finished run is not signalled.
        String done = api().as("client").body("{\"correlationKey\": \"order-done\"}").post("/api/v1/workflows/{name}/runs", workflow)
                .then().statusCode(201).extract().path("runId");
        awaitStatus(done, "SUCCEEDED");
        JsonPath finished = send(event("payment.received", "order-done", "{}", fresh())).then().statusCode(202).extract().jsonPath();
        assertEquals(List.of(), finished.getList("signalled"));
        assertEquals(List.of(rule), finished.getList("skipped.rule"));
    }

    @Test
    void aSignalRuleWhoseSignalTheRunsRevisionDoesNotDeclareReportsItInsteadOfDroppingIt() {
        String workflow = api().define(AWAITS_PAYMENT);
        String runId = api().as("client").body("{\"correlationKey\": \"order-77\"}").post("/api/v1/workflows/{name}/runs", workflow)
                .then().statusCode(201).extract().path("runId");
        String rule = rule("{\"on\": \"payment.refunded\", \"signal\": {\"name\": \"refunded\"}}");

        JsonPath receipt = send(event("payment.refunded", "order-77", "{}", fresh())).then().statusCode(202).extract().jsonPath();

        assertEquals(List.of(), receipt.getList("signalled"), receipt.prettify());
        assertEquals(List.of(rule), receipt.getList("skipped.rule"), receipt.prettify());
        String reason = receipt.getString("skipped[0].reason");
        assertTrue(reason.contains(runId) && reason.contains("'refunded'") && reason.contains("paid"), reason);
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1", UUID.fromString(runId)),
                "nothing was delivered");
    }

    // ---- exactly once ------------------------------------------------------------------------------------

    private List<HttpResponse<String>> concurrently(int threads, String body) throws Exception {
        return api().concurrently(threads, "client", "POST", "/api/v1/events", body, Map.of());
    }

    @Test
    void anEventSentFiftyTimesAtOnceStartsExactlyOneRun() throws Exception {
        String workflow = api().define(AWAITS_PAYMENT);
        String rule = rule("{\"on\": \"order.created\", \"start\": {\"workflow\": \"" + workflow + "\"}}");
        String body = event("order.created", "order-50", "{\"id\": 50}", fresh());
        List<HttpResponse<String>> responses = concurrently(50, body);
        String all = responses.stream().map(r -> r.statusCode() + " " + r.body()).collect(Collectors.joining("\n"));
        assertEquals(1, responses.stream().filter(r -> r.statusCode() == 202).count(), all);
        assertEquals(49, responses.stream().filter(r -> r.statusCode() == 200).count(), all);
        Set<String> eventIds = new java.util.HashSet<>();
        Set<String> runIds = new java.util.HashSet<>();
        for (HttpResponse<String> response : responses) {
            JsonNode receipt = fixtures.json(response.body());
            assertEquals(response.statusCode() == 200, receipt.get("duplicate").asBoolean(), response.body());
            eventIds.add(receipt.get("eventId").asText());
            assertEquals(1, receipt.get("started").size(), response.body());
            assertEquals(rule, receipt.at("/started/0/rule").asText());
            runIds.add(receipt.at("/started/0/runId").asText());
        }
        assertEquals(1, eventIds.size(), all);
        assertEquals(1, runIds.size(), all);
        assertEquals(1, runsOfTenant());
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_event WHERE tenant = ?1", api().tenant));
    }

    @Test
    void anEventSentAgainAndAgainStartsOneRunAndAnswersWhatTheFirstDeliveryDid() {
        String workflow = api().define(AWAITS_PAYMENT);
        rule("{\"on\": \"order.created\", \"start\": {\"workflow\": \"" + workflow + "\"}}");
        String key = fresh();
        Response first = send(event("order.created", "order-2", "{\"id\": 2}", key));
        assertEquals(202, first.statusCode(), first::asString);
        JsonNode original = fixtures.json(first.asString());
        for (int i = 0; i < 10; i++) {
            Response again = send(event("order.created", "order-2", "{\"id\": 2}", key));
            assertEquals(200, again.statusCode(), again::asString);
            JsonNode repeat = fixtures.json(again.asString());
            assertTrue(repeat.get("duplicate").asBoolean());
            for (String field : List.of("eventId", "type", "key", "started", "signalled", "skipped")) {
                assertEquals(original.get(field), repeat.get(field), field);
            }
        }
        assertEquals(1, runsOfTenant());
        // A new idempotency key is a new event.
        assertEquals(202, send(event("order.created", "order-2", "{\"id\": 2}", fresh())).statusCode());
        assertEquals(2, runsOfTenant());
    }

    @Test
    void aSignallingEventSentManyTimesDeliversItsSignalOnce() throws Exception {
        String workflow = api().define(AWAITS_PAYMENT);
        String runId = api().as("client").body("{\"correlationKey\": \"order-3\"}").post("/api/v1/workflows/{name}/runs", workflow)
                .then().statusCode(201).extract().path("runId");
        rule("{\"on\": \"payment.received\", \"signal\": {\"name\": \"paid\"}}");
        String body = event("payment.received", "order-3", "{\"amount\": 1}", fresh());
        List<HttpResponse<String>> responses = concurrently(20, body);
        assertEquals(1, responses.stream().filter(r -> r.statusCode() == 202).count());
        assertEquals(19, responses.stream().filter(r -> r.statusCode() == 200).count());
        for (int i = 0; i < 5; i++) {
            assertEquals(200, send(body).statusCode());
        }
        awaitStatus(runId, "SUCCEEDED");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = CAST(?1 AS uuid) AND kind = 'SIGNAL'", runId));
    }

    // ---- errors ------------------------------------------------------------------------------------------

    @Test
    void badBodiesAre400AndRecordNothing() {
        for (String body : List.of("[]", "\"event\"", "{}", "{\"idempotencyKey\": \"k\"}", "{\"type\": \"t\"}",
                "{\"type\": \"\", \"idempotencyKey\": \"k\"}", "{\"type\": 5, \"idempotencyKey\": \"k\"}",
                "{\"type\": \"t\", \"idempotencyKey\": \"\"}", "{\"type\": \"t\", \"idempotencyKey\": 5}",
                "{\"type\": \"t\", \"key\": 5, \"idempotencyKey\": \"k\"}", "{\"type\": \"t\", \"key\": \" \", \"idempotencyKey\": \"k\"}",
                "{\"type\": \"t\", \"idempotencyKey\": \"k\", \"extra\": 1}",
                "{\"type\": \"t\", \"idempotencyKey\": \"" + "k".repeat(201) + "\"}", "{\"type\": ")) {
            Api.problem(send(body), 400);
        }
        for (String body : List.of("{\"type\": \"t\", \"payload\": {\"a\": \"x\\u0000y\"}, \"idempotencyKey\": \"k\"}",
                "{\"type\": \"t\", \"payload\": {\"a\\u0000\": 1}, \"idempotencyKey\": \"k\"}",
                "{\"type\": \"t\\u0000\", \"idempotencyKey\": \"k\"}", "{\"type\": \"t\", \"idempotencyKey\": \"k\\u0000\"}")) {
            assertTrue(Api.problem(send(body), 400).getString("detail").contains("NUL"), body);
        }
        Response huge = send("{\"type\": \"t\", \"payload\": {\"n\": 1e400}, \"idempotencyKey\": \"" + fresh() + "\"}");
        assertTrue(huge.statusCode() == 400 || huge.statusCode() == 202, huge::asString);
        JsonPath problem = Api.problem(send("{\"type\": \"t\"}"), 400);
        assertEquals("idempotencyKey", problem.getString("field"));
        assertEquals(huge.statusCode() == 202 ? 1 : 0, fixtures.count("SELECT count(*) FROM eec_event WHERE tenant = ?1", api().tenant));
        // The run start body's correlationKey is checked as well.
        String workflow = api().define(ONE_TASK);
        Api.problem(api().as("client").body("{\"correlationKey\": 5}").post("/api/v1/workflows/{name}/runs", workflow), 400);
    }

    @Test
    void withoutATokenIs401AndOnlyClientsMaySendEvents() {
        String body = event("t", null, null, fresh());
        Api.problem(given().contentType("application/json").body(body).post("/api/v1/events"), 401);
        for (String role : List.of("admin", "operator", "worker")) {
            Api.problem(api().as(role).body(body).post("/api/v1/events"), 403);
        }
        assertEquals(202, send(body).statusCode());
    }
}
