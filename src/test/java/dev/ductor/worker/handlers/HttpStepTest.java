package dev.ductor.worker.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ductor.support.Fixtures;
import dev.ductor.worker.StepContext;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code http} handler as a workflow runs it: a task node of a run, dispatched by the coordinator and executed by
 * this process's in-process worker, calls a real HTTP server (the JDK's, in this JVM) and the run keeps its answer.
 * A 5xx is retried with the same Idempotency-Key and the next attempt's number; a 4xx fails the node at once.
 */
@QuarkusTest
@Tag("db")
class HttpStepTest {

    private static final String TENANT = "http-step";

    @Inject
    Fixtures fixtures;

    private record Call(String method, String path, String idempotencyKey, String attempt, String body) {
    }

    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final AtomicInteger flakyCalls = new AtomicInteger();
    private HttpServer server;

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/charge", exchange -> answer(exchange, 200, "{\"charged\":5}"));
        server.createContext("/flaky", exchange -> answer(exchange, flakyCalls.incrementAndGet() == 1 ? 503 : 200, "{\"ok\":true}"));
        server.createContext("/refused", exchange -> answer(exchange, 422, "{\"error\":\"no\"}"));
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    private void answer(HttpExchange exchange, int status, String body) throws IOException {
        try (exchange) {
            String received = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            calls.add(new Call(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Idempotency-Key"), exchange.getRequestHeaders().getFirst("Ductor-Attempt"),
                    received));
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    private UUID run(String path, int maxAttempts) {
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + path;
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"call\",\"type\":\"task\",\"handler\":\"http\","
                + "\"input\":{\"url\":\"" + url + "\",\"method\":\"POST\",\"body\":{\"amount\":5}},"
                + "\"retry\":{\"maxAttempts\":" + maxAttempts + ",\"backoff\":\"PT1S\"}}]}");
        return fixtures.start(TENANT, workflow);
    }

    private JsonNode node(UUID runId) {
        String json = fixtures.rows("SELECT CAST(node_states -> 'call' AS text) FROM eec_workflow_run WHERE run_id = ?1", runId);
        return fixtures.json(json.substring(1, json.length() - 1)); // rows() wraps the one row in [ ]
    }

    private static String key(UUID runId) {
        return "\"" + new StepContext(runId, "call", 1).idempotencyKey() + "\"";
    }

    @Test
    void aRunsHttpStepCallsTheServiceOnceAndKeepsItsAnswer() {
        UUID runId = run("/charge", 1);
        fixtures.awaitStatus(runId, "SUCCEEDED");

        assertEquals(List.of(new Call("POST", "/charge", key(runId), "1", "{\"amount\":5}")), calls);
        JsonNode node = node(runId);
        assertEquals(1, node.path("attempts").asInt(), node.toString());
        assertEquals(200, node.at("/output/status").asInt(), node.toString());
        assertEquals("{\"charged\":5}", node.at("/output/body").asText(), node.toString());
    }

    @Test
    void aServerErrorIsRetriedWithTheSameKeyAndTheNextAttemptsNumber() {
        UUID runId = run("/flaky", 3);
        fixtures.awaitStatus(runId, "SUCCEEDED");

        assertEquals(List.of(new Call("POST", "/flaky", key(runId), "1", "{\"amount\":5}"),
                new Call("POST", "/flaky", key(runId), "2", "{\"amount\":5}")), calls);
        assertEquals(2, node(runId).path("attempts").asInt());
    }

    @Test
    void aStepCannotCallThisPodsOwnPortEvenWhereLoopbackIsAllowed() {
        int ownPort = io.restassured.RestAssured.port; // tests allow 127.0.0.1 (application.properties)
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"call\",\"type\":\"task\",\"handler\":\"http\","
                + "\"input\":{\"url\":\"http://127.0.0.1:" + ownPort + "/q/metrics\"}}]}");
        UUID runId = fixtures.start(TENANT, workflow);
        fixtures.awaitStatus(runId, "FAILED");

        JsonNode node = node(runId);
        assertTrue(node.path("error").asText().contains("own port " + ownPort), node.toString());
        assertEquals(1, node.path("attempts").asInt(), "a refusal is not retried: " + node);
    }

    @Test
    void aClientErrorFailsTheStepWithoutARetry() {
        UUID runId = run("/refused", 3);
        fixtures.awaitStatus(runId, "FAILED");

        assertEquals(1, calls.size(), "called once: " + calls);
        JsonNode node = node(runId);
        assertEquals("FAILED", node.path("state").asText(), node.toString());
        assertEquals(1, node.path("attempts").asInt(), node.toString());
    }
}
