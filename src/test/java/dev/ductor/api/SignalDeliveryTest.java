package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Signals over HTTP with the coordinator running: delivered once per key, coalesced, kept until awaited. */
@QuarkusTest
@Tag("api")
class SignalDeliveryTest {

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    private final String tenant = "signals-" + UUID.randomUUID().toString().substring(0, 8);

    private io.restassured.specification.RequestSpecification as(String role) {
        return given().header("Authorization", "Bearer " + issuer.mint(role, tenant)).contentType(ContentType.JSON);
    }

    private String define(String definition) {
        String name = fixtures.uniqueName("sig");
        as("admin").body(definition).put("/api/v1/workflows/{name}", name).then().statusCode(201);
        return name;
    }

    private String start(String workflow) {
        return as("client").body("{}").post("/api/v1/workflows/{name}/runs", workflow).then().statusCode(201)
                .extract().path("runId");
    }

    private Response run(String runId) {
        return as("client").get("/api/v1/runs/{id}", runId);
    }

    private String awaitTerminal(String runId) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String status = run(runId).path("status");
            if (!"RUNNING".equals(status)) {
                return status;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("run " + runId + " never finished: " + run(runId).asString());
    }

    @Test
    void aSignalNoNodeOfTheRunsRevisionDeclaresIs422NamingTheDeclaredOnesAndIsNotKept() {
        String runId = start(define("{\"nodes\":[{\"id\":\"pay\",\"type\":\"signal\",\"signal\":\"paid\"},"
                + "{\"id\":\"ship\",\"type\":\"signal\",\"signal\":\"shipped\",\"dependsOn\":[\"pay\"]}]}"));

        Response refused = as("client").body("{\"name\":\"payd\",\"idempotencyKey\":\"typo-1\"}")
                .post("/api/v1/runs/{id}/signals", runId);

        assertEquals(422, refused.statusCode(), refused::asString);
        assertEquals("application/problem+json", refused.contentType().split(";")[0]);
        assertEquals(List.of("paid", "shipped"), refused.jsonPath().getList("declaredSignals"), refused.asString());
        assertTrue(refused.jsonPath().getString("detail").contains("payd"), refused.asString());
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1", UUID.fromString(runId)),
                "nothing was delivered");
        assertEquals(202, as("client").body("{\"name\":\"paid\",\"idempotencyKey\":\"pay-1\"}")
                .post("/api/v1/runs/{id}/signals", runId).statusCode(), "a declared signal is still accepted");
    }

    @Test
    void theSameSignalSentAHundredTimesAtOnceIsDeliveredOnce() throws Exception {
        String runId = start(define("{\"nodes\":[{\"id\":\"paid\",\"type\":\"signal\",\"signal\":\"paid\"},"
                + "{\"id\":\"ship\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"paid\"]}]}"));
        int senders = 100;
        CyclicBarrier together = new CyclicBarrier(senders);
        ExecutorService pool = Executors.newFixedThreadPool(senders);
        String token = issuer.mint("client", tenant);
        List<Future<Integer>> statuses = new ArrayList<>();
        for (int i = 0; i < senders; i++) {
            statuses.add(pool.submit(() -> {
                together.await(30, TimeUnit.SECONDS);
                return given().header("Authorization", "Bearer " + token).contentType(ContentType.JSON)
                        .body("{\"name\":\"paid\",\"payload\":{\"amount\":42},\"idempotencyKey\":\"payment-1\"}")
                        .post("/api/v1/runs/{id}/signals", runId).statusCode();
            }));
        }
        List<Integer> codes = new ArrayList<>();
        for (Future<Integer> status : statuses) {
            codes.add(status.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();

        assertEquals(1, Collections.frequency(codes, 202), "one delivery accepted: " + codes);
        assertEquals(99, Collections.frequency(codes, 200), "99 repeats answered as duplicates: " + codes);
        assertEquals("SUCCEEDED", awaitTerminal(runId));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND kind = 'SIGNAL'", UUID.fromString(runId)));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1 AND node_id = 'paid' AND to_state = 'SUCCEEDED'",
                UUID.fromString(runId)));
        assertEquals(42, (Integer) run(runId).path("nodes.paid.output.amount"));
    }

    @Test
    void aBurstOfAThousandSignalsIsAbsorbedWithFarFewerCommitsThanSignals() throws Exception {
        int waits = 200;
        StringBuilder nodes = new StringBuilder();
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < waits; i++) {
            nodes.append("{\"id\":\"s").append(i).append("\",\"type\":\"signal\",\"signal\":\"sig-").append(i).append("\"},");
            all.append(i == 0 ? "" : ",").append("\"s").append(i).append("\"");
        }
        // The run stays open until the test sends "close", so every signal of the burst lands on a running run.
        nodes.append("{\"id\":\"close\",\"type\":\"signal\",\"signal\":\"close\"},");
        nodes.append("{\"id\":\"done\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[").append(all).append(",\"close\"]}");
        String runId = start(define("{\"nodes\":[" + nodes + "]}"));

        int signals = 1000;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        String token = issuer.mint("client", tenant);
        List<Future<Integer>> statuses = new ArrayList<>();
        for (int i = 0; i < signals; i++) {
            int n = i;
            statuses.add(pool.submit(() -> given().header("Authorization", "Bearer " + token).contentType(ContentType.JSON)
                    .body("{\"name\":\"sig-" + (n % waits) + "\",\"payload\":{\"n\":" + n + "},\"idempotencyKey\":\"burst-" + n + "\"}")
                    .post("/api/v1/runs/{id}/signals", runId).statusCode()));
        }
        List<Integer> codes = new ArrayList<>();
        for (Future<Integer> status : statuses) {
            codes.add(status.get(120, TimeUnit.SECONDS));
        }
        pool.shutdown();

        assertEquals(signals, Collections.frequency(codes, 202), "every signal accepted: " + codes.stream().filter(c -> c != 202).toList());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1 AND to_state = 'SUCCEEDED' AND node_id LIKE 's%'",
                UUID.fromString(runId)) < waits && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        long commitsForTheBurst = fixtures.version(UUID.fromString(runId));
        as("client").body("{\"name\":\"close\",\"idempotencyKey\":\"close\"}").post("/api/v1/runs/{id}/signals", runId)
                .then().statusCode(202);
        assertEquals("SUCCEEDED", awaitTerminal(runId));
        System.out.printf("signals: %d signals into one run, %d accepted, absorbed by %d commits%n", signals,
                Collections.frequency(codes, 202), commitsForTheBurst);
        assertTrue(commitsForTheBurst < waits / 2, "signals were coalesced into few ticks: " + commitsForTheBurst + " commits");
        // No global "no tick failed" count here: ductor.tick{outcome=error} counts every run of the shared test
        // application, and a corrupt run left by the checksum tests is re-ticked (and fails) every 30 s, so that count
        // failed this test by chance (CI, 2026-12-02). What this test checks is the burst: every signal accepted,
        // absorbed by few commits, the run SUCCEEDED, and no signal left unconsumed.
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL",
                UUID.fromString(runId)), "signals nobody waited for were drained when the run finished");
    }

    @Test
    void aSignalSentBeforeItsNodeWaitsIsKeptUntilTheNodeReachesIt() throws Exception {
        String runId = start(define("{\"nodes\":[{\"id\":\"slow\",\"type\":\"task\",\"handler\":\"sleep\",\"input\":{\"ms\":1500}},"
                + "{\"id\":\"approved\",\"type\":\"signal\",\"signal\":\"approve\",\"dependsOn\":[\"slow\"]}]}"));
        as("client").body("{\"name\":\"approve\",\"payload\":{\"by\":\"ann\"},\"idempotencyKey\":\"early\"}")
                .post("/api/v1/runs/{id}/signals", runId).then().statusCode(202);
        assertEquals("RUNNING", run(runId).path("status"));
        assertEquals("PENDING", run(runId).path("nodes.approved.state"));

        assertEquals("SUCCEEDED", awaitTerminal(runId));
        assertEquals("ann", run(runId).path("nodes.approved.output.by"));
    }

    @Test
    void aSignalToAFinishedRunIs409AndChangesNothing() throws Exception {
        String runId = start(define("{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"}]}"));
        assertEquals("SUCCEEDED", awaitTerminal(runId));
        long version = fixtures.version(UUID.fromString(runId));
        Response refused = as("client").body("{\"name\":\"late\",\"idempotencyKey\":\"k\"}").post("/api/v1/runs/{id}/signals", runId);
        assertEquals(409, refused.statusCode());
        assertTrue(refused.contentType().startsWith("application/problem+json"));
        assertEquals(version, fixtures.version(UUID.fromString(runId)));
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND kind = 'SIGNAL'", UUID.fromString(runId)));
    }

    @Test
    void badSignalsAre400AndUnknownRuns404() {
        String runId = start(define("{\"nodes\":[{\"id\":\"s\",\"type\":\"signal\",\"signal\":\"go\"}]}"));
        as("client").body("{\"name\":\"go\"}").post("/api/v1/runs/{id}/signals", runId).then().statusCode(400);
        as("client").body("{\"idempotencyKey\":\"k\"}").post("/api/v1/runs/{id}/signals", runId).then().statusCode(400);
        as("client").body("{\"name\":\"go\",\"idempotencyKey\":\"k\",\"extra\":1}").post("/api/v1/runs/{id}/signals", runId).then().statusCode(400);
        as("client").body("[1,2]").post("/api/v1/runs/{id}/signals", runId).then().statusCode(400);
        as("client").body("{\"name\":\"go\",\"idempotencyKey\":\"k\"}").post("/api/v1/runs/{id}/signals", UUID.randomUUID().toString())
                .then().statusCode(404);
        as("admin").body("{\"name\":\"go\",\"idempotencyKey\":\"k\"}").post("/api/v1/runs/{id}/signals", runId).then().statusCode(403);
        // a rule's own key space: a client must not pre-empt the signal a rule sends for an event
        Response reserved = as("client").body("{\"name\":\"go\",\"idempotencyKey\":\"event:e-1:approve\"}")
                .post("/api/v1/runs/{id}/signals", runId);
        assertEquals(400, reserved.statusCode());
        assertTrue(reserved.body().asString().contains("reserved"), reserved.body().asString());
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND kind = 'SIGNAL'", UUID.fromString(runId)));
        assertEquals("RUNNING", run(runId).path("status"));
    }
}
