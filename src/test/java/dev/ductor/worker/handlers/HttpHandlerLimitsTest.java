package dev.ductor.worker.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.ductor.worker.StepContext;
import dev.ductor.worker.StepFailure;
import dev.ductor.worker.egress.EgressPolicy;
import dev.ductor.worker.egress.HttpSettings;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The http step's bounds against a real local server: a body past the size cap and a body that trickles past the
 * time cap fail the step with an error naming the cap, whatever {@code timeoutMs} asks; the default policy does not
 * let the step reach this machine at all; a secret comes from the pod's settings and never shows in an error.
 */
@Tag("unit")
class HttpHandlerLimitsTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int CAP = 1024;
    private static final Duration MAX_TIME = Duration.ofSeconds(2); // generous for a loaded machine, yet far below the trickle's minute
    private static final EgressPolicy LOOPBACK_ALLOWED = EgressPolicy.of(List.of("127.0.0.1"), List.of(), Set.of(), a -> false);

    private final AtomicInteger calls = new AtomicInteger();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private Vertx vertx;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/big", exchange -> {
            calls.incrementAndGet();
            exchange.sendResponseHeaders(200, 0); // chunked: the size is not announced
            try (OutputStream out = exchange.getResponseBody()) {
                byte[] chunk = new byte[64 * 1024];
                for (int i = 0; i < 32; i++) { // 2 MiB
                    out.write(chunk);
                }
            } catch (java.io.IOException cutOff) {
                // the client stopped reading: expected
            }
        });
        server.createContext("/trickle", exchange -> {
            calls.incrementAndGet();
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (int i = 0; i < 600; i++) { // a minute, a byte every 100 ms
                    out.write('x');
                    out.flush();
                    Thread.sleep(100);
                }
            } catch (java.io.IOException | InterruptedException cutOff) {
                // the client gave up: expected
            }
        });
        server.createContext("/ok", exchange -> {
            calls.incrementAndGet();
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            authorizations.add(auth == null ? "" : auth);
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(auth == null ? 200 : 401, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop(0);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private HttpHandler handler(EgressPolicy policy) {
        return new HttpHandler(vertx, new HttpSettings(policy, MAX_TIME, CAP, Map.of("payments", "Bearer s3cret-value")));
    }

    private JsonNode input(String path, String extra) throws Exception {
        return MAPPER.readTree("{\"url\":\"http://127.0.0.1:" + server.getAddress().getPort() + path + "\"" + extra + "}");
    }

    private static StepContext step() {
        return new StepContext(UUID.randomUUID(), "call", 1);
    }

    @Test
    void aBodyPastTheSizeCapFailsTheStepNamingTheCap() throws Exception {
        StepFailure failure = assertThrows(StepFailure.class, () -> handler(LOOPBACK_ALLOWED).run(step(), input("/big", "")));
        assertFalse(failure.retryable(), "the same answer would be as big again: " + failure.getMessage());
        assertTrue(failure.getMessage().contains(CAP + " bytes") && failure.getMessage().contains("ductor.http.max-response-bytes"),
                failure.getMessage());
    }

    @Test
    void aTricklingBodyIsCutAtTheTimeCapWhateverTimeoutMsAsks() throws Exception {
        long started = System.nanoTime();
        Exception failure = assertThrows(Exception.class, () -> {
            try {
                java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return handler(LOOPBACK_ALLOWED).run(step(), input("/trickle", ",\"timeoutMs\":600000"));
                    } catch (Exception e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                }).get(20, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw (Exception) e.getCause();
            }
        });
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertFalse(failure instanceof TimeoutException, "the step still ran after 20 s");
        assertTrue(failure instanceof StepFailure, failure.toString());
        assertTrue(failure.getMessage().contains("ductor.http.max-time"), failure.getMessage());
        assertTrue(took.compareTo(Duration.ofSeconds(10)) < 0, "cut after " + took);
    }

    @Test
    void byDefaultTheStepCannotReachThisMachine() throws Exception {
        EgressPolicy byDefault = EgressPolicy.of(List.of(), List.of(), Set.of(), a -> false);
        StepFailure failure = assertThrows(StepFailure.class, () -> handler(byDefault).run(step(), input("/ok", "")));
        assertFalse(failure.retryable());
        assertTrue(failure.getMessage().contains("loopback"), failure.getMessage());
        assertEquals(0, calls.get(), "the server was called");

        StepFailure byName = assertThrows(StepFailure.class, () -> handler(byDefault).run(step(),
                MAPPER.readTree("{\"url\":\"http://localhost:" + server.getAddress().getPort() + "/ok\"}")));
        assertTrue(byName.getMessage().contains("loopback"), byName.getMessage());
        assertEquals(0, calls.get(), "the server was called through localhost");
    }

    @Test
    void aSecretRefSendsThePodsSecretAndNoErrorShowsIt() throws Exception {
        StepFailure refused = assertThrows(StepFailure.class, () -> handler(LOOPBACK_ALLOWED).run(step(),
                input("/ok?token=in-the-query", ",\"auth\":{\"secretRef\":\"payments\"}")));
        assertEquals(List.of("Bearer s3cret-value"), authorizations, refused.getMessage());
        assertFalse(refused.getMessage().contains("s3cret"), refused.getMessage());
        assertFalse(refused.getMessage().contains("in-the-query"), "the query may carry credentials: " + refused.getMessage());

        StepFailure unknown = assertThrows(StepFailure.class, () -> handler(LOOPBACK_ALLOWED).run(step(),
                input("/ok", ",\"auth\":{\"secretRef\":\"nope\"}")));
        assertFalse(unknown.retryable());
        assertTrue(unknown.getMessage().contains("ductor.http.secrets.nope"), unknown.getMessage());
        assertEquals(1, calls.get(), "called without its secret");
    }

    @Test
    void aSmallAnswerWithinTheCapsIsTheOutput() throws Exception {
        JsonNode output = handler(LOOPBACK_ALLOWED).run(step(), input("/ok", ""));
        assertEquals(200, output.path("status").asInt());
        assertEquals("{\"ok\":true}", output.path("body").asText());
    }
}
