package dev.ductor.worker.egress;

import com.sun.net.httpserver.HttpServer;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many short exchanges at once, each answered in one small write, so a response is often whole the moment it arrives.
 * Handlers attached to it late (a listener added from the calling thread after the exchange had already completed)
 * never saw its end, and the exchange hung to its time cap: a step of the multi-pod IT waited out its 5 minutes with
 * "Response already ended" in the pod's log. That took a descheduled caller on a loaded host; this test did not
 * reproduce it on a quiet one, and stands guard that every exchange ends, with its answer, well within its cap.
 */
@Tag("unit")
class BoundedExchangeTest {

    private HttpServer server;
    private Vertx vertx;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/ok", exchange -> {
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        vertx.close();
    }

    @Test
    void everyOneOfManyQuickExchangesEndsWithItsAnswer() throws Exception {
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setMaxPoolSize(8).setKeepAlive(true));
        BoundedExchange exchange = new BoundedExchange(client);
        URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/ok");
        List<String> problems = new CopyOnWriteArrayList<>();
        ExecutorService callers = Executors.newFixedThreadPool(32); // more callers than cores
        for (int i = 0; i < 2000; i++) {
            callers.submit(() -> {
                try {
                    BoundedExchange.Answer answer = exchange.send("POST", uri, InetAddress.getLoopbackAddress(), Map.of(),
                            "{}", Duration.ofSeconds(20), "the test's cap", 1024, "/ok");
                    if (answer.status() != 200 || !answer.body().contains("ok")) {
                        problems.add(answer.status() + " " + answer.body());
                    }
                } catch (Exception e) {
                    problems.add(e.toString());
                }
            });
        }
        callers.shutdown();
        assertTrue(callers.awaitTermination(5, TimeUnit.MINUTES), "the exchanges did not all end");
        assertTrue(problems.isEmpty(), problems.size() + " exchanges failed, first: " + (problems.isEmpty() ? "" : problems.get(0)));
    }
}
