package dev.ductor.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import dev.ductor.support.Fixtures;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A number of a few bytes that is a billion digits written out ({@code 1e999999999}) used to end the pod with an
 * OutOfMemoryError, from any client token. It is refused where the JSON is read, naming the field; nothing is stored,
 * the idempotency key stays free, and the next ordinary request is served.
 */
@QuarkusTest
@Tag("api")
class HostileNumbersApiTest {

    /** The answer writes a number out in full, as PostgreSQL hands it back: longer than a default mapper reads. */
    private static final ObjectMapper LONG_NUMBERS = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(2000).build()).build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
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

    private Response event(String payload, String idempotencyKey) {
        return api().as("client").body("{\"type\": \"x\", \"idempotencyKey\": \"" + idempotencyKey + "\", \"payload\": " + payload + "}")
                .post("/api/v1/events");
    }

    private long events() {
        return fixtures.count("SELECT count(*) FROM eec_event WHERE tenant = ?1", api().tenant);
    }

    private long runs() {
        return fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE tenant = ?1", api().tenant);
    }

    @Test
    void anEventWithAHugeExponentIsRefusedNamingTheFieldAndThePodServesTheNext() {
        String key = "k-" + UUID.randomUUID();
        JsonPath problem = Api.problem(event("1e999999999", key), 400);
        assertEquals("payload", problem.getString("field"), problem.prettify());
        assertEquals(0, events());

        assertEquals(202, event("{\"n\": 1}", key).statusCode(), "the same key, now with an ordinary payload");
        assertEquals(1, events());
    }

    @Test
    void aTinyExponentDeepInThePayloadIsRefusedNamingItsPath() {
        JsonPath problem = Api.problem(event("{\"lines\": [1, {\"price\": -2.5e-999999999}]}", "k-" + UUID.randomUUID()), 400);
        assertEquals("payload.lines.1.price", problem.getString("field"), problem.prettify());
        assertEquals(0, events());
    }

    @Test
    void aKeyedRunStartWithAHugeExponentIsRefusedAndTheKeyStaysFree() {
        String workflow = api().define(ONE_TASK);
        String key = "k-" + UUID.randomUUID();
        JsonPath problem = Api.problem(api().startRun(workflow,
                "{\"input\": {\"amount\": 1e999999999}, \"idempotencyKey\": \"" + key + "\"}"), 400);
        assertEquals("input.amount", problem.getString("field"), problem.prettify());
        assertEquals(0, runs());

        Response started = api().startRun(workflow, "{\"input\": {\"amount\": 1e400}, \"idempotencyKey\": \"" + key + "\"}");
        assertEquals(201, started.statusCode(), started::asString);
        assertEquals(1, runs());
    }

    @Test
    void aNumberOfAThousandDigitsWrittenOutIsKept() throws Exception {
        String workflow = api().define(ONE_TASK);
        String runId = api().start(workflow, "{\"input\": {\"big\": 1e999, \"small\": 1e-999}}");
        JsonNode input = LONG_NUMBERS.readTree(api().run(runId).asString()).path("input");
        assertEquals(0, new BigDecimal("1e999").compareTo(input.path("big").decimalValue()), input::toString);
        assertEquals(0, new BigDecimal("1e-999").compareTo(input.path("small").decimalValue()), input::toString);
    }
}
