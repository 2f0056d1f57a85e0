package dev.ductor.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The service the {@code http} steps of an IT call, in the test's JVM: it counts every request per node attempt, the
 * {@code Idempotency-Key} (one per node of a run) and {@code Ductor-Attempt} the handler sends. That is the count
 * of handler executions, which the inbox cannot give: its UNIQUE key (run, dedup key) keeps a result recorded once
 * however often the step ran.
 *
 * <p>{@code POST /ok} answers 200 at once. {@code POST /hold} holds attempt 1 until {@link #close()} (a step that
 * outlives its pod) and later attempts until {@link #releaseRetries()}, so that the test decides when a retry ends. {@code POST /hold-first} holds the first call of each
 * node attempt until {@link #close()} and answers a repeat of it (the step handed back and run again) at once.
 */
final class StepLedger implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService threads;
    private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    private final CountDownLatch released = new CountDownLatch(1);
    private final CountDownLatch retriesReleased = new CountDownLatch(1);

    StepLedger() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 128);
        server.createContext("/ok", exchange -> answer(exchange, false));
        server.createContext("/hold", exchange -> answer(exchange, true));
        server.createContext("/hold-first", exchange -> answer(exchange, true));
        threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "step-ledger");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        server.start();
    }

    /** The input of an {@code http} node that calls {@code path} ("ok", "hold" or "hold-first") of this ledger. */
    String input(String path) {
        return "{\"url\": \"http://127.0.0.1:" + server.getAddress().getPort() + "/" + path + "\", \"method\": \"POST\","
                + " \"body\": {}, \"timeoutMs\": 300000}";
    }

    /** Executions per node attempt, as {@code "<idempotency key> attempt <n>" -> count}, sorted. */
    Map<String, Integer> executions() {
        Map<String, Integer> copy = new TreeMap<>();
        executions.forEach((key, count) -> copy.put(key, count.get()));
        return copy;
    }

    /** How many node attempts ran more than once, with what came in for them. */
    Map<String, Integer> executedMoreThanOnce() {
        Map<String, Integer> twice = new TreeMap<>();
        executions().forEach((key, count) -> {
            if (count != 1) {
                twice.put(key, count);
            }
        });
        return twice;
    }

    private void answer(HttpExchange exchange, boolean holdFirstAttempt) throws IOException {
        try (exchange; InputStream body = exchange.getRequestBody()) {
            body.readAllBytes();
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            String attempt = exchange.getRequestHeaders().getFirst("Ductor-Attempt");
            int execution = executions.computeIfAbsent(key + " attempt " + attempt, k -> new AtomicInteger()).incrementAndGet();
            boolean firstCall = exchange.getRequestURI().getPath().equals("/hold-first") && execution == 1;
            boolean hold = exchange.getRequestURI().getPath().equals("/hold");
            try {
                if (holdFirstAttempt && ("1".equals(attempt) && hold || firstCall)) {
                    released.await(10, TimeUnit.MINUTES);
                } else if (hold) {
                    retriesReleased.await(10, TimeUnit.MINUTES);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] answer = ("{\"attempt\": " + attempt + "}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
        } catch (IOException callerGone) {
            // The pod that called was killed: its request is counted all the same, it did run.
        }
    }

    /** Lets the held later attempts of {@code /hold} (and any that come) answer. */
    void releaseRetries() {
        retriesReleased.countDown();
    }

    @Override
    public void close() {
        released.countDown();
        retriesReleased.countDown();
        server.stop(0);
        threads.shutdownNow();
    }
}
