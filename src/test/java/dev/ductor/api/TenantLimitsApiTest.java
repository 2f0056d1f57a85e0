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

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What one tenant may hold open or pile up is bounded (issue 28, "bounded everything"): long-poll claims and live
 * streams per tenant and pod, signals pending on a run. Past a bound the answer is 429 problem+json with Retry-After,
 * naming the bound and its setting; nothing is applied; another tenant is not affected.
 */
@QuarkusTest
@TestProfile(TenantLimitsApiTest.SmallBounds.class)
@Tag("api")
class TenantLimitsApiTest {

    public static class SmallBounds implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("ductor.limits.long-polls-per-tenant", "1",
                    "ductor.limits.streams-per-tenant", "1",
                    "ductor.limits.pending-signals-per-run", "2");
        }
    }

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    private RequestSpecification as(String role, String tenant) {
        return given().header("Authorization", "Bearer " + issuer.mint(role, tenant)).contentType(ContentType.JSON);
    }

    private static String tenant() {
        return "limits-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static void assertLimit(Response refused, String limit) {
        assertEquals(429, refused.statusCode(), refused::asString);
        assertEquals("application/problem+json", refused.contentType().split(";")[0]);
        assertEquals("1", refused.header("Retry-After"));
        assertEquals(limit, refused.jsonPath().getString("limit"), refused.asString());
    }

    @Test
    void aTenantHoldsAtMostItsBoundOfLongPollsAndOthersAreNotStalled() throws Exception {
        String tenant = tenant();
        String poll = "{\"handlers\":[\"ext:nothing\"],\"workerId\":\"w\",\"max\":1,\"waitSeconds\":3}";
        // Two polls that each hold for seconds, sent together: with a bound of one, exactly one is held open.
        CompletableFuture<Response> first = CompletableFuture.supplyAsync(
                () -> as("worker", tenant).body(poll).post("/api/v1/tasks/claim"));
        CompletableFuture<Response> second = CompletableFuture.supplyAsync(
                () -> as("worker", tenant).body(poll).post("/api/v1/tasks/claim"));
        Response other = as("worker", tenant()).body(poll.replace("3}", "1}")).post("/api/v1/tasks/claim");

        Response a = first.get(30, TimeUnit.SECONDS);
        Response b = second.get(30, TimeUnit.SECONDS);
        Response refused = a.statusCode() == 429 ? a : b;
        Response held = refused == a ? b : a;
        assertLimit(refused, "long-polls");
        assertEquals(200, held.statusCode(), held::asString);
        assertEquals(200, other.statusCode(), "another tenant still polls meanwhile");
        assertEquals(200, as("worker", tenant).body(poll.replace("3}", "1}")).post("/api/v1/tasks/claim").statusCode(),
                "once it ended, the tenant may poll again");
    }

    @Test
    void aTenantHoldsAtMostItsBoundOfLiveStreams() throws Exception {
        String tenant = tenant();
        String workflow = fixtures.define(tenant, "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"go\"}]}");
        String runId = fixtures.start(tenant, workflow).toString();
        String path = "/api/v1/runs/" + runId + "/events";
        try (SseStream open = SseStream.open(path, issuer.mint("client", tenant), null)) {
            assertEquals(200, open.status, open.body);
            try (SseStream refused = SseStream.open(path, issuer.mint("client", tenant), null)) {
                assertEquals(429, refused.status, refused.body);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int status;
        do { // the server notices the closed stream at its next write or heartbeat
            try (SseStream again = SseStream.open(path, issuer.mint("client", tenant), null)) {
                status = again.status;
            }
            Thread.sleep(status == 200 ? 0 : 100);
        } while (status != 200 && System.nanoTime() < deadline);
        assertEquals(200, status, "a closed stream gives its place back");
    }

    @Test
    void aRunTakesAtMostItsBoundOfPendingSignals() {
        String tenant = tenant();
        String workflow = fixtures.define(tenant, "{\"nodes\":[{\"id\":\"work\",\"type\":\"task\",\"handler\":\"ext:nobody\"},"
                + "{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"go\",\"dependsOn\":[\"work\"]}]}");
        String runId = fixtures.start(tenant, workflow).toString();
        for (int i = 1; i <= 2; i++) {
            assertEquals(202, as("client", tenant).body("{\"name\":\"go\",\"idempotencyKey\":\"go-" + i + "\"}")
                    .post("/api/v1/runs/{id}/signals", runId).statusCode());
        }

        assertLimit(as("client", tenant).body("{\"name\":\"go\",\"idempotencyKey\":\"go-3\"}")
                .post("/api/v1/runs/{id}/signals", runId), "pending-signals");
        assertEquals(2, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1", UUID.fromString(runId)),
                "the refused signal was not kept");
        assertEquals(200, as("client", tenant).body("{\"name\":\"go\",\"idempotencyKey\":\"go-1\"}")
                .post("/api/v1/runs/{id}/signals", runId).statusCode(), "a repeat of a signal already kept is still a repeat");
    }
}
