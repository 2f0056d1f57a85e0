package dev.ductor.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The service a flaky step calls, in the test's JVM: {@code POST /flaky/<key>} answers 503 the first time a key is
 * called and 200 every time after, so each run's first attempt fails deterministically (retryably: it is a 5xx) and
 * a retry succeeds. It counts the calls per key, to show afterwards that each run was retried.
 */
final class FlakyEndpoint implements AutoCloseable {

    private final HttpServer server;
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    FlakyEndpoint() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.createContext("/flaky/", this::answer);
        server.setExecutor(Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "flaky-endpoint");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    /** The URL the run with idempotency key {@code key} calls. */
    String url(String key) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/flaky/" + key;
    }

    int calls(String key) {
        AtomicInteger count = calls.get(key);
        return count == null ? 0 : count.get();
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange; InputStream body = exchange.getRequestBody()) {
            body.readAllBytes();
            String key = exchange.getRequestURI().getPath().substring("/flaky/".length());
            int call = calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            int status = call == 1 ? 503 : 200;
            byte[] answer = ("{\"call\": " + call + "}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
