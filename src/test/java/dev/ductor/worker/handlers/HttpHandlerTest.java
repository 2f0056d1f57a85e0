package dev.ductor.worker.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import dev.ductor.worker.StepContext;
import dev.ductor.worker.egress.EgressPolicy;
import dev.ductor.worker.egress.HttpSettings;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The http handler lets the service it calls deduplicate: every attempt of one step sends the same
 * {@code Idempotency-Key} and its own {@code Ductor-Attempt}. Against a real HTTP server that records what arrives.
 */
@Tag("unit")
class HttpHandlerTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final List<Headers> received = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private Vertx vertx;

    @BeforeEach
    void startServer() throws Exception {
        vertx = Vertx.vertx();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/charge", exchange -> {
            received.add(exchange.getRequestHeaders());
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stopServer() throws Exception {
        server.stop(0);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    private JsonNode call(StepContext step) throws Exception {
        JsonNode input = MAPPER.readTree("{\"url\":\"http://127.0.0.1:" + server.getAddress().getPort() + "/charge\","
                + "\"method\":\"POST\",\"body\":{\"amount\":5}}");
        return new HttpHandler(vertx, new HttpSettings(EgressPolicy.of(List.of("127.0.0.1"), List.of(), Set.of(), a -> false),
                Duration.ofSeconds(10), 1024 * 1024, Map.of())).run(step, input);
    }

    @Test
    void everyAttemptOfAStepSendsTheSameIdempotencyKeyAndItsAttemptNumber() throws Exception {
        UUID runId = UUID.randomUUID();

        assertEquals(200, call(new StepContext(runId, "charge", 1)).get("status").asInt());
        call(new StepContext(runId, "charge", 2));

        assertEquals(2, received.size());
        String key = received.get(0).getFirst("Idempotency-Key");
        assertNotNull(key, "no Idempotency-Key sent: " + received.get(0).keySet());
        assertEquals(key, received.get(1).getFirst("Idempotency-Key"), "one key for every attempt of the step");
        assertEquals("\"" + new StepContext(runId, "charge", 7).idempotencyKey() + "\"", key,
                "a structured-field string, as the IETF Idempotency-Key draft has it");
        assertEquals("1", received.get(0).getFirst("Ductor-Attempt"));
        assertEquals("2", received.get(1).getFirst("Ductor-Attempt"));
    }

    @Test
    void anotherNodeOrRunGetsAnotherKey() throws Exception {
        UUID runId = UUID.randomUUID();

        call(new StepContext(runId, "charge", 1));
        call(new StepContext(runId, "refund", 1));
        call(new StepContext(UUID.randomUUID(), "charge", 1));

        assertEquals(3, received.size());
        String first = received.get(0).getFirst("Idempotency-Key");
        assertNotNull(first, "no Idempotency-Key sent");
        assertNotEquals(first, received.get(1).getFirst("Idempotency-Key"));
        assertNotEquals(first, received.get(2).getFirst("Idempotency-Key"));
    }
}
