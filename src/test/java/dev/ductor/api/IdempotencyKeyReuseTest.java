package dev.ductor.api;

import dev.ductor.support.Api;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CONTRACT §6, IETF Idempotency-Key draft: the same key with the same body is answered as the first request was
 * (200, nothing done twice); the same key with a different body is a 422 problem naming the key, and does nothing.
 * For run starts, signals and events alike.
 */
@QuarkusTest
@Tag("api")
class IdempotencyKeyReuseTest {

    @Inject
    DevTokenIssuer issuer;

    @Test
    void aRunStartWithAUsedKeyAndAnotherBodyIs422AndStartsNothing() {
        Api api = new Api(issuer);
        String workflow = Api.unique("reuse");
        api.createWorkflow(workflow, Api.chain3());
        Response first = api.startRun(workflow, "{\"input\": {\"n\": 1, \"tags\": [\"a\"]}, \"idempotencyKey\": \"order-1\"}");
        assertEquals(201, first.statusCode(), first::asString);
        String runId = first.jsonPath().getString("runId");

        for (String other : List.of(
                "{\"input\": {\"n\": 2, \"tags\": [\"a\"]}, \"idempotencyKey\": \"order-1\"}",
                "{\"input\": {\"n\": 1}, \"idempotencyKey\": \"order-1\"}",
                "{\"idempotencyKey\": \"order-1\"}",
                "{\"input\": {\"n\": 1, \"tags\": [\"a\"]}, \"idempotencyKey\": \"order-1\", \"tier\": \"bulk\"}",
                "{\"input\": {\"n\": 1, \"tags\": [\"a\"]}, \"idempotencyKey\": \"order-1\", \"correlationKey\": \"c-1\"}")) {
            assertReuse(api.startRun(workflow, other), "order-1");
        }

        // The same request again, keys in another order and the default tier spelled out: the first answer.
        Response again = api.startRun(workflow,
                "{\"tier\": \"standard\", \"idempotencyKey\": \"order-1\", \"input\": {\"tags\": [\"a\"], \"n\": 1}}");
        assertEquals(200, again.statusCode(), again::asString);
        assertEquals(runId, again.jsonPath().getString("runId"));
        assertEquals(List.of(runId), Api.ids(api.as("client").queryParam("workflow", workflow).get("/api/v1/runs")
                .then().statusCode(200).extract().jsonPath()), "one run, whatever was sent");
    }

    @Test
    void concurrentStartsWithOneKeyAndTwoBodiesCreateOneRunAndRefuseTheOtherBody() throws Exception {
        Api api = new Api(issuer);
        String workflow = Api.unique("reuse-race");
        api.createWorkflow(workflow, Api.chain3());
        List<HttpResponse<String>> responses = api.concurrently(6, "client", "POST", "/api/v1/workflows/" + workflow + "/runs",
                "{\"input\": {\"n\": 1}, \"idempotencyKey\": \"same\"}", Map.of());
        long created = responses.stream().filter(r -> r.statusCode() == 201).count();
        assertEquals(1, created, () -> Api.describe(responses));
        assertTrue(responses.stream().allMatch(r -> r.statusCode() == 201 || r.statusCode() == 200), () -> Api.describe(responses));
        assertReuse(api.startRun(workflow, "{\"input\": {\"n\": 2}, \"idempotencyKey\": \"same\"}"), "same");
    }

    @Test
    void aSignalWithAUsedKeyAndAnotherBodyIs422AndIsNotDelivered() {
        Api api = new Api(issuer);
        String workflow = Api.unique("reuse-signal");
        api.createWorkflow(workflow, Api.definition(Api.node("paid", "signal", "\"signal\": \"paid\""),
                Api.node("shipped", "signal", "\"signal\": \"shipped\"")));
        String runId = api.start(workflow);
        String signal = "{\"name\": \"paid\", \"payload\": {\"amount\": 42}, \"idempotencyKey\": \"pay-1\"}";
        assertEquals(202, api.as("client").body(signal).post("/api/v1/runs/{id}/signals", runId).statusCode());

        assertReuse(api.as("client").body("{\"name\": \"paid\", \"payload\": {\"amount\": 43}, \"idempotencyKey\": \"pay-1\"}")
                .post("/api/v1/runs/{id}/signals", runId), "pay-1");
        assertReuse(api.as("client").body("{\"name\": \"shipped\", \"payload\": {\"amount\": 42}, \"idempotencyKey\": \"pay-1\"}")
                .post("/api/v1/runs/{id}/signals", runId), "pay-1");
        assertReuse(api.as("client").body("{\"name\": \"paid\", \"idempotencyKey\": \"pay-1\"}")
                .post("/api/v1/runs/{id}/signals", runId), "pay-1");

        Response repeat = api.as("client").body("{\"idempotencyKey\": \"pay-1\", \"payload\": {\"amount\": 42.0}, \"name\": \"paid\"}")
                .post("/api/v1/runs/{id}/signals", runId);
        assertEquals(200, repeat.statusCode(), repeat::asString);
        assertEquals("duplicate", repeat.jsonPath().getString("delivered"));
        assertTrue(!"SUCCEEDED".equals(api.run(runId).jsonPath().getString("nodes.shipped.state")),
                "the refused 'shipped' signal was not delivered");
    }

    @Test
    void anEventWithAUsedKeyAndAnotherBodyIs422AndDoesNothing() {
        Api api = new Api(issuer);
        String event = "{\"type\": \"order.created\", \"key\": \"o-1\", \"payload\": {\"id\": 1}, \"idempotencyKey\": \"evt-1\"}";
        Response first = api.as("client").body(event).post("/api/v1/events");
        assertEquals(202, first.statusCode(), first::asString);

        for (String other : List.of(
                "{\"type\": \"order.created\", \"key\": \"o-1\", \"payload\": {\"id\": 2}, \"idempotencyKey\": \"evt-1\"}",
                "{\"type\": \"order.cancelled\", \"key\": \"o-1\", \"payload\": {\"id\": 1}, \"idempotencyKey\": \"evt-1\"}",
                "{\"type\": \"order.created\", \"payload\": {\"id\": 1}, \"idempotencyKey\": \"evt-1\"}")) {
            assertReuse(api.as("client").body(other).post("/api/v1/events"), "evt-1");
        }
        Response again = api.as("client").body("{\"idempotencyKey\": \"evt-1\", \"payload\": {\"id\": 1}, \"key\": \"o-1\","
                + " \"type\": \"order.created\"}").post("/api/v1/events");
        assertEquals(200, again.statusCode(), again::asString);
        assertEquals(first.jsonPath().getString("eventId"), again.jsonPath().getString("eventId"));
    }

    private static void assertReuse(Response response, String key) {
        JsonPath problem = Api.problem(response, 422);
        assertEquals(key, problem.getString("idempotencyKey"), response::asString);
        assertTrue(problem.getString("type").endsWith("/idempotency-key-reused"), response::asString);
        assertTrue(problem.getString("detail").contains("'" + key + "'"), response::asString);
    }
}
