package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The users of a chaos trial: runs started at a steady pace, a workflow of each kind in turn, each by a client that,
 * when its pod fails it (connection refused or reset, timeout, 5xx), tries again on another pod with the same
 * idempotency key until it gets an answer, for up to {@link ChaosSettings#clientBudget()}. Signal runs get their
 * signal from such a client too, up to 1.5 s after their start was accepted.
 */
final class ChaosClients implements AutoCloseable {

    /** A start the API accepted (201 new, or 200: a retry found the run an earlier try had created). */
    record Accepted(String key, ChaosWorkflows kind, String runId, String body, int tries, int status, long latencyMillis,
                    long acceptedAtMillis) {
    }

    /** A signal the API accepted (202, or 200 when an earlier try had delivered it). */
    record Signalled(String key, String runId, String body, int tries, int status) {
    }

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final Set<Integer> STARTED = Set.of(200, 201);
    private static final Set<Integer> SIGNALLED = Set.of(200, 202);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final ChaosFleet fleet;
    private final ChaosSettings settings;
    private final FlakyEndpoint flaky;
    private final String token;
    private final ExecutorService workers = Executors.newFixedThreadPool(64, daemon("chaos-client"));
    private final ScheduledExecutorService clock = Executors.newScheduledThreadPool(1, daemon("chaos-pace"));
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicLong retries = new AtomicLong();
    private final List<Accepted> accepted = new CopyOnWriteArrayList<>();
    private final List<Signalled> signalled = new CopyOnWriteArrayList<>();
    private final List<String> abandoned = new CopyOnWriteArrayList<>();
    private final List<String> refused = new CopyOnWriteArrayList<>();
    private final List<String> serverErrors = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicLong> answers = new ConcurrentHashMap<>();
    /** Failed tries per 5 s of the trial: when the pods failed their clients, and how. */
    private final Map<Long, Map<String, AtomicLong>> failuresBy5s = new ConcurrentHashMap<>();
    private volatile long loadStartedMillis;

    ChaosClients(ChaosFleet fleet, ChaosSettings settings, FlakyEndpoint flaky, String token) {
        this.fleet = fleet;
        this.settings = settings;
        this.flaky = flaky;
        this.token = token;
    }

    /** Starts runs at {@link ChaosSettings#pace()} per second for {@code load}, from now; returns at once. */
    void startLoad(Duration load) {
        loadStartedMillis = System.currentTimeMillis();
        long period = Math.round(1e9 / settings.pace());
        long count = Math.max(1, load.toNanos() / period);
        for (long k = 0; k < count; k++) {
            int n = (int) k;
            pending.incrementAndGet();
            clock.schedule(() -> workers.execute(() -> {
                try {
                    start(n);
                } finally {
                    pending.decrementAndGet();
                }
            }), k * period, TimeUnit.NANOSECONDS);
        }
    }

    /** Waits until every start and signal has been answered or given up; false on timeout. */
    boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pending.get() > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(100);
        }
        return true;
    }

    List<Accepted> accepted() {
        return accepted;
    }

    List<Signalled> signalled() {
        return signalled;
    }

    /** Requests given up after the client budget: the key, and what the last try got. */
    List<String> abandoned() {
        return abandoned;
    }

    /** Answers no retry can fix (a 4xx): each is a broken promise of the API. */
    List<String> refused() {
        return refused;
    }

    /**
     * 5xx answers other than 503: CONTRACT §6 makes a database outage a 503 (saying whether the request may have been
     * applied), and nothing else here may fail a request on the server's side.
     */
    List<String> serverErrors() {
        return serverErrors;
    }

    int sent() {
        return sent.get();
    }

    /** Tries after the first, over every request. */
    long retries() {
        return retries.get();
    }

    /** What the pods answered, every try counted: HTTP status, or io (refused, reset) and timeout. */
    Map<String, Long> answers() {
        Map<String, Long> out = new TreeMap<>();
        answers.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    private void start(int k) {
        sent.incrementAndGet();
        ChaosWorkflows kind = ChaosWorkflows.values()[k % ChaosWorkflows.values().length];
        String key = "chaos-" + k;
        String input = kind == ChaosWorkflows.FLAKY
                ? "{\"url\": \"" + flaky.url(key) + "\", \"method\": \"POST\"}"
                : "{\"k\": " + k + "}";
        String body = "{\"input\": " + input + ", \"idempotencyKey\": \"" + key + "\"}";
        long started = System.nanoTime();
        Answer answer = untilAnswered("start " + key, "/api/v1/workflows/" + kind.workflow + "/runs", body, STARTED);
        if (answer == null) {
            return;
        }
        String runId = ItHttp.tree(answer.body).path("runId").asText();
        accepted.add(new Accepted(key, kind, runId, body, answer.tries, answer.status, (System.nanoTime() - started) / 1_000_000,
                System.currentTimeMillis()));
        if (kind == ChaosWorkflows.SIGNAL) {
            pending.incrementAndGet();
            // Before or after the run reaches its signal node: an early signal waits in the inbox for the node.
            long delay = ThreadLocalRandom.current().nextLong(1500);
            clock.schedule(() -> workers.execute(() -> {
                try {
                    signal(k, runId);
                } finally {
                    pending.decrementAndGet();
                }
            }), delay, TimeUnit.MILLISECONDS);
        }
    }

    private void signal(int k, String runId) {
        String key = "sig-" + k;
        String body = "{\"name\": \"approve\", \"payload\": {\"k\": " + k + "}, \"idempotencyKey\": \"" + key + "\"}";
        Answer answer = untilAnswered("signal " + key, "/api/v1/runs/" + runId + "/signals", body, SIGNALLED);
        if (answer != null) {
            signalled.add(new Signalled(key, runId, body, answer.tries, answer.status));
        }
    }

    private record Answer(int status, String body, int tries) {
    }

    /**
     * POSTs {@code body} until a pod answers one of {@code ok}, each retry on another pod; null when the budget ran out
     * (recorded as abandoned) or a pod refused the request for good (a 4xx, recorded as refused).
     */
    private Answer untilAnswered(String what, String path, String body, Set<Integer> ok) {
        long deadline = System.nanoTime() + settings.clientBudget().toNanos();
        long backoff = 100;
        String last = "not sent";
        PodProcess pod = fleet.pick(ThreadLocalRandom.current(), null);
        for (int tries = 1; ; tries++) {
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(pod.url(path)))
                                .timeout(REQUEST_TIMEOUT)
                                .header("Authorization", "Bearer " + token)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                        HttpResponse.BodyHandlers.ofString());
                count(Integer.toString(response.statusCode()));
                if (ok.contains(response.statusCode())) {
                    return new Answer(response.statusCode(), response.body(), tries);
                }
                last = response.statusCode() + " " + response.body();
                if (response.statusCode() >= 500 && response.statusCode() != 503) {
                    serverErrors.add(what + " on " + pod.name() + " (try " + tries + ", " + Pods.seconds((System.currentTimeMillis()
                            - loadStartedMillis) * 1_000_000) + " s into the load): " + last);
                }
                if (response.statusCode() < 500 && response.statusCode() != 429) {
                    refused.add(what + " on " + pod.name() + " (try " + tries + "): " + last);
                    return null;
                }
            } catch (HttpTimeoutException e) {
                count("timeout");
                last = "timeout on " + pod.name();
            } catch (IOException e) {
                count("io");
                last = e.getClass().getSimpleName() + " on " + pod.name();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                abandoned.add(what + ": interrupted");
                return null;
            }
            if (System.nanoTime() > deadline) {
                abandoned.add(what + " after " + tries + " tries: " + last);
                return null;
            }
            retries.incrementAndGet();
            try {
                Thread.sleep(backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                abandoned.add(what + ": interrupted");
                return null;
            }
            backoff = Math.min(backoff * 2, 2000);
            pod = fleet.pick(ThreadLocalRandom.current(), pod);
        }
    }

    private void count(String answer) {
        answers.computeIfAbsent(answer, k -> new AtomicLong()).incrementAndGet();
        if (!answer.startsWith("2")) {
            long bucket = (System.currentTimeMillis() - loadStartedMillis) / 5000;
            failuresBy5s.computeIfAbsent(bucket, b -> new ConcurrentHashMap<>())
                    .computeIfAbsent(answer, a -> new AtomicLong()).incrementAndGet();
        }
    }

    /** The failed tries as "from-to s: answer x count ...", one 5 s window per entry, in order. */
    String failureTimeline() {
        return new TreeMap<>(failuresBy5s).entrySet().stream()
                .map(e -> (e.getKey() * 5) + "-" + (e.getKey() * 5 + 5) + "s " + new TreeMap<>(e.getValue()).entrySet().stream()
                        .map(a -> a.getKey() + "x" + a.getValue().get()).collect(java.util.stream.Collectors.joining(" ")))
                .collect(java.util.stream.Collectors.joining("; "));
    }

    /** One plain POST with no retry, for the checks after the trial; the answer's status and body. */
    JsonNode once(PodProcess pod, String path, String body, int expectedStatus, List<String> problems) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(pod.url(path)))
                    .timeout(REQUEST_TIMEOUT)
                    .header("Authorization", "Bearer " + token)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != expectedStatus) {
                problems.add("POST " + path + " " + body + " on " + pod.name() + ": expected " + expectedStatus + ", got "
                        + response.statusCode() + " " + response.body());
                return null;
            }
            return ItHttp.tree(response.body());
        } catch (IOException e) {
            problems.add("POST " + path + " on " + pod.name() + ": " + e);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problems.add("POST " + path + ": interrupted");
            return null;
        }
    }

    @Override
    public void close() {
        clock.shutdownNow();
        workers.shutdownNow();
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicInteger counter = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + counter.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
