package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import dev.ductor.support.SseStream;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What one caller (a token's subject) may hold open is bounded within its tenant's bound (issue 28: "limits per caller
 * and per tenant"): a caller past its bound of long polls or live streams gets 429 problem+json with Retry-After, naming
 * the per-caller bound and its setting, while another caller of the same tenant still polls and streams.
 */
@QuarkusTest
@TestProfile(CallerLimitsApiTest.SmallCallerBounds.class)
@Tag("api")
class CallerLimitsApiTest {

    public static class SmallCallerBounds implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("ductor.limits.long-polls-per-caller", "1",
                    "ductor.limits.long-polls-per-tenant", "4",
                    "ductor.limits.streams-per-caller", "1",
                    "ductor.limits.streams-per-tenant", "4");
        }
    }

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    private String token(String subject, String role, String tenant) {
        return issuer.mint(subject, List.of(role), tenant);
    }

    private RequestSpecification as(String token) {
        return given().header("Authorization", "Bearer " + token).contentType(ContentType.JSON);
    }

    private static String tenant() {
        return "callers-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static void assertCallerLimit(Response refused, String limit, String setting) {
        assertEquals(429, refused.statusCode(), refused::asString);
        assertEquals("application/problem+json", refused.contentType().split(";")[0]);
        assertEquals("1", refused.header("Retry-After"));
        assertEquals(limit, refused.jsonPath().getString("limit"), refused.asString());
        assertEquals(setting, refused.jsonPath().getString("setting"), refused.asString());
        assertEquals(1, refused.jsonPath().getInt("max"), refused.asString());
    }

    @Test
    void aCallerPastItsBoundOfLongPollsLeavesTheOtherCallersOfItsTenantPolling() throws Exception {
        String tenant = tenant();
        String greedy = token("greedy-worker", "worker", tenant);
        String other = token("other-worker", "worker", tenant);
        String poll = "{\"handlers\":[\"ext:nothing\"],\"workerId\":\"w\",\"max\":1,\"waitSeconds\":3}";
        CompletableFuture<Response> first = CompletableFuture.supplyAsync(() -> as(greedy).body(poll).post("/api/v1/tasks/claim"));
        CompletableFuture<Response> second = CompletableFuture.supplyAsync(() -> as(greedy).body(poll).post("/api/v1/tasks/claim"));

        Response a = first.get(30, TimeUnit.SECONDS);
        Response b = second.get(30, TimeUnit.SECONDS);
        Response refused = a.statusCode() == 429 ? a : b;
        Response held = refused == a ? b : a;
        assertCallerLimit(refused, "long-polls-per-caller", "ductor.limits.long-polls-per-caller");
        assertEquals(200, held.statusCode(), held::asString);

        // While the greedy caller holds its one poll open, another caller of the same tenant polls.
        CompletableFuture<Response> holding = CompletableFuture.supplyAsync(() -> as(greedy).body(poll).post("/api/v1/tasks/claim"));
        Thread.sleep(500);
        Response meanwhile = as(other).body(poll.replace("3}", "1}")).post("/api/v1/tasks/claim");
        assertEquals(200, meanwhile.statusCode(), "another caller of the tenant still polls: " + meanwhile.asString());
        assertEquals(200, holding.get(30, TimeUnit.SECONDS).statusCode());
        assertEquals(200, as(greedy).body(poll.replace("3}", "1}")).post("/api/v1/tasks/claim").statusCode(),
                "once its poll ended, the caller may poll again");
    }

    @Test
    void aCallerPastItsBoundOfStreamsLeavesTheOtherCallersOfItsTenantStreaming() throws Exception {
        String tenant = tenant();
        String workflow = fixtures.define(tenant, "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"go\"}]}");
        String path = "/api/v1/runs/" + fixtures.start(tenant, workflow) + "/events";
        String greedy = token("greedy-dashboard", "client", tenant);
        try (SseStream open = SseStream.open(path, greedy, null)) {
            assertEquals(200, open.status, open.body);
            try (SseStream refused = SseStream.open(path, greedy, null)) {
                assertEquals(429, refused.status, refused.body);
                assertEquals(true, refused.body.contains("ductor.limits.streams-per-caller"), refused.body);
            }
            try (SseStream other = SseStream.open(path, token("other-dashboard", "client", tenant), null)) {
                assertEquals(200, other.status, "another caller of the tenant still streams: " + other.body);
            }
        }
    }
}
