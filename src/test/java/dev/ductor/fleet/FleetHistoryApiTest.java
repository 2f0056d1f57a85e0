package dev.ductor.fleet;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static dev.ductor.support.Api.definition;
import static dev.ductor.support.Api.node;
import static dev.ductor.support.Api.task;
import static dev.ductor.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GET /api/v1/fleet/history: sixty minutes of the caller's tenant, its runs counted from the run rows and its queue
 * depth and the pods from the sampler's rows; another tenant's runs are not in it.
 */
@QuarkusTest
@Tag("api")
class FleetHistoryApiTest {

    @Inject
    DevTokenIssuer issuer;

    @Inject
    FleetSampler sampler;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
    }

    @Test
    void theLastHourCountsTheTenantsRunsTheirFailuresAndDurationsAndTheSampledQueueAndPods() {
        String ok = unique("hist-ok");
        api.createWorkflow(ok, definition(task("one", "noop")));
        String bad = unique("hist-bad");
        api.createWorkflow(bad, definition(node("one", "task", "\"handler\": \"fail\", \"input\": {\"retryable\": false}")));
        String gated = unique("hist-wait");
        api.createWorkflow(gated, definition(node("gate", "signal", "\"signal\": \"never\"")));
        for (String run : List.of(api.start(ok), api.start(ok), api.start(bad))) {
            api.awaitTerminal(run);
        }
        api.start(gated);
        Api other = new Api(issuer);
        String elsewhere = unique("hist-other");
        other.createWorkflow(elsewhere, definition(task("one", "noop")));
        other.awaitTerminal(other.start(elsewhere));
        sampler.runOnce();

        JsonPath history = api.as("operator").get("/api/v1/fleet/history").then().statusCode(200).extract().jsonPath();

        List<Map<String, Object>> minutes = history.getList("minutes");
        assertEquals(60, minutes.size());
        Instant from = Instant.parse(history.getString("from"));
        Instant to = Instant.parse(history.getString("to"));
        assertEquals(Duration.ofHours(1), Duration.between(from, to));
        assertEquals(from, Instant.parse((String) minutes.get(0).get("at")));
        assertTrue(history.getList("tiers").contains("standard"), history.getList("tiers").toString());

        long started = sum(minutes, "started");
        long finished = sum(minutes, "finished");
        assertEquals(4, started, "this tenant's four runs, not the other tenant's: " + minutes);
        assertEquals(3, finished, "the waiting run has not finished");
        assertEquals(1, sum(minutes, "failed"));
        Map<String, Object> busy = minutes.stream().filter(m -> ((Number) m.get("finished")).longValue() > 0).reduce((a, b) -> b).orElseThrow();
        assertNotNull(busy.get("p50Ms"), busy.toString());
        assertTrue(((Number) busy.get("p99Ms")).doubleValue() >= ((Number) busy.get("p50Ms")).doubleValue(), busy.toString());

        Map<String, Object> now = sampled(minutes);
        assertTrue(((Number) now.get("pods")).longValue() >= 1, "this pod sampled the minute: " + now);
        assertTrue(((Map<?, ?>) now.get("queueDepth")).containsKey("standard"), now.toString());
        Map<String, Object> quiet = minutes.get(0);
        assertNull(quiet.get("p50Ms"), "no run finished an hour ago");
        assertNull(quiet.get("queueDepth"), "no pod sampled an hour ago: a gap, not a zero");
    }

    @Test
    void aPodSamplingTheSameMinuteTwiceCountsOnce() {
        sampler.runOnce();
        sampler.runOnce();
        JsonPath history = api.as("client").get("/api/v1/fleet/history").then().statusCode(200).extract().jsonPath();
        List<Map<String, Object>> minutes = history.getList("minutes");
        Map<String, Object> now = sampled(minutes);
        assertEquals(1L, ((Number) now.get("pods")).longValue(), "one pod in this test: " + now);
    }

    /** The minute just sampled: the current one, or the one before when the minute turned since the sample. */
    private static Map<String, Object> sampled(List<Map<String, Object>> minutes) {
        Map<String, Object> now = minutes.get(59).get("queueDepth") != null ? minutes.get(59) : minutes.get(58);
        assertNotNull(now.get("queueDepth"), "the minute just sampled has a queue sample: " + minutes.subList(58, 60));
        return now;
    }

    private static long sum(List<Map<String, Object>> minutes, String field) {
        return minutes.stream().mapToLong(m -> ((Number) m.get(field)).longValue()).sum();
    }
}
