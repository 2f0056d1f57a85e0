// The load and the checks of bench/run.sh failover (bench/failover.sh). JDK only, like bench/chain3's driver.
//
// Starts runs of one workflow over HTTP at a steady pace, each with its own idempotency key; a 503 is retried with the
// same key (as the problem's Retry-After asks), and so is anything else, but that is counted and printed: during a
// database switch only 503s should be seen. Stops starting when the stop file appears, then waits for every
// acknowledged run to end and checks it:
//   lost   acknowledged (201 or 200 with a run id), but GET answers 404
//   stuck  not terminal when the settle time is up
//   failed FAILED or CANCELLED
//   recovery_s  per failover (start times in the failovers file, epoch ms a line): from its start to the first
//          start acknowledged after the last error it caused (the first acknowledged after its start when it caused
//          none); the worst of them
// Figures go to --out as key=value lines; non-503 errors, failed runs and the per-failover figures to stdout.
//
// usage: java FailoverLoad.java --base-url http://127.0.0.1:8080 --workflow failover --client-token file
//        --pace 20 --stop-file f --failovers-file f --out f [--max-load-s 900] [--settle-s 240] [--concurrency 32]
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class FailoverLoad {

    record Event(long atMillis, String kind, String detail) {
    }

    static final Pattern RUN_ID = Pattern.compile("\"runId\"\\s*:\\s*\"([0-9a-f-]{36})\"");
    static final Pattern STATUS = Pattern.compile("\"status\"\\s*:\\s*\"([A-Z]+)\"");
    static final Pattern LATER_ATTEMPT = Pattern.compile("\"attempts\"\\s*:\\s*([2-9]|[1-9][0-9]+)\\b");
    /** Runs some node of which took more than one attempt (a lost lease dispatched again, say). */
    static final Map<String, Boolean> retried = new ConcurrentHashMap<>();

    static final List<Event> events = Collections.synchronizedList(new ArrayList<>());
    static final Map<String, String> acknowledged = new ConcurrentHashMap<>(); // runId -> idempotency key
    static final AtomicInteger unacknowledged = new AtomicInteger();
    static final AtomicInteger got503 = new AtomicInteger();

    static HttpClient http;
    static String token;

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        String base = need(a, "base-url");
        String workflow = a.getOrDefault("workflow", "failover");
        token = Files.readString(Path.of(need(a, "client-token"))).trim();
        double pace = Double.parseDouble(a.getOrDefault("pace", "20"));
        Path stopFile = Path.of(need(a, "stop-file"));
        Path failoversFile = Path.of(need(a, "failovers-file"));
        Path out = Path.of(need(a, "out"));
        long maxLoadMillis = Long.parseLong(a.getOrDefault("max-load-s", "900")) * 1000;
        long settleMillis = Long.parseLong(a.getOrDefault("settle-s", "240")) * 1000;
        int concurrency = Integer.parseInt(a.getOrDefault("concurrency", "32"));
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        // ---- load: one start every 1/pace s, at most `concurrency` in flight (a start retrying a 503 holds its slot)
        ExecutorService starters = Executors.newFixedThreadPool(concurrency);
        Semaphore slots = new Semaphore(concurrency);
        long begun = System.currentTimeMillis();
        long intervalNanos = (long) (1_000_000_000L / pace);
        long next = System.nanoTime();
        int submitted = 0;
        int skipped = 0;
        while (!Files.exists(stopFile) && System.currentTimeMillis() - begun < maxLoadMillis) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            next += intervalNanos;
            if (!slots.tryAcquire()) {
                skipped++; // every slot busy retrying: the pace drops rather than piling up threads
                continue;
            }
            submitted++;
            starters.execute(() -> {
                try {
                    start(base, workflow);
                } finally {
                    slots.release();
                }
            });
        }
        starters.shutdown();
        if (!starters.awaitTermination(200, TimeUnit.SECONDS)) {
            System.out.println("starts still retrying after 200 s: " + (concurrency - slots.availablePermits()));
            starters.shutdownNow();
        }
        long loadEnded = System.currentTimeMillis();
        System.err.printf("load: %d starts submitted (%d skipped: all slots busy), %d acknowledged, %d 503s, in %d s%n",
                submitted, skipped, acknowledged.size(), got503.get(), (loadEnded - begun) / 1000);

        // ---- checks: every acknowledged run, until all are terminal or the settle time is up
        Map<String, String> statusOf = new ConcurrentHashMap<>();
        List<String> open = new ArrayList<>(acknowledged.keySet());
        long settleEnd = System.currentTimeMillis() + settleMillis;
        ExecutorService checkers = Executors.newFixedThreadPool(8);
        while (!open.isEmpty()) {
            List<java.util.concurrent.Future<?>> pending = new ArrayList<>();
            for (String runId : open) {
                pending.add(checkers.submit(() -> statusOf.put(runId, status(base, runId))));
            }
            for (java.util.concurrent.Future<?> f : pending) {
                f.get();
            }
            List<String> still = new ArrayList<>();
            for (String runId : open) {
                String s = statusOf.get(runId);
                if (s.equals("RUNNING") || s.equals("UNKNOWN")) {
                    still.add(runId);
                }
            }
            open = still;
            if (open.isEmpty() || System.currentTimeMillis() > settleEnd) {
                break;
            }
            System.err.printf("check: %d of %d runs not terminal yet%n", open.size(), acknowledged.size());
            Thread.sleep(5000);
        }
        int lost = 0, stuck = 0, failed = 0, succeeded = 0;
        List<String> failedRuns = new ArrayList<>();
        for (Map.Entry<String, String> e : statusOf.entrySet()) {
            switch (e.getValue()) {
                case "LOST" -> lost++;
                case "SUCCEEDED" -> succeeded++;
                case "FAILED", "CANCELLED" -> {
                    failed++;
                    failedRuns.add(e.getKey());
                }
                default -> stuck++;
            }
        }
        for (String runId : failedRuns.subList(0, Math.min(5, failedRuns.size()))) {
            System.out.println("failed run " + runId + ": " + get(base + "/api/v1/runs/" + runId).body());
        }
        checkers.shutdownNow();

        // ---- recovery per failover, from the events
        List<Long> failovers = new ArrayList<>();
        if (Files.exists(failoversFile)) {
            for (String line : Files.readAllLines(failoversFile)) {
                if (!line.isBlank()) {
                    failovers.add(Long.parseLong(line.trim()));
                }
            }
        }
        Collections.sort(failovers);
        List<Event> sorted;
        synchronized (events) {
            sorted = new ArrayList<>(events);
        }
        sorted.sort((x, y) -> Long.compare(x.atMillis(), y.atMillis()));
        double worst = failovers.isEmpty() ? Double.NaN : 0;
        for (int i = 0; i < failovers.size(); i++) {
            long from = failovers.get(i);
            long to = i + 1 < failovers.size() ? failovers.get(i + 1) : Long.MAX_VALUE;
            long lastError = -1;
            int n503 = 0, other = 0;
            for (Event e : sorted) {
                if (e.atMillis() >= from && e.atMillis() < to && !e.kind().equals("ack")) {
                    lastError = e.atMillis();
                    if (e.kind().equals("503")) {
                        n503++;
                    } else {
                        other++;
                    }
                }
            }
            long after = lastError >= 0 ? lastError : from;
            Long firstAck = null;
            for (Event e : sorted) {
                if (e.kind().equals("ack") && e.atMillis() >= after) {
                    firstAck = e.atMillis();
                    break;
                }
            }
            double recovery = firstAck == null ? Double.NaN : (firstAck - from) / 1000.0;
            System.out.printf("failover %d: at %s, 503s=%d other_errors=%d recovery_s=%.1f%n", i + 1,
                    Instant.ofEpochMilli(from), n503, other, recovery);
            worst = Double.isNaN(recovery) || Double.isNaN(worst) ? Double.NaN : Math.max(worst, recovery);
        }

        List<Event> errors = sorted.stream().filter(e -> e.kind().equals("error")).toList();
        System.out.println("non_503_errors=" + errors.size());
        Map<String, Integer> byKind = new LinkedHashMap<>();
        errors.forEach(e -> byKind.merge(e.detail().replaceAll("[0-9a-f-]{36}", "<id>"), 1, Integer::sum));
        byKind.entrySet().stream().limit(20).forEach(e -> System.out.println("  " + e.getValue() + " x " + e.getKey()));

        Map<String, String> figures = new LinkedHashMap<>();
        figures.put("submitted", String.valueOf(submitted));
        figures.put("unacknowledged", String.valueOf(unacknowledged.get()));
        figures.put("responses_503", String.valueOf(got503.get()));
        figures.put("non_503_errors", String.valueOf(errors.size()));
        figures.put("succeeded", String.valueOf(succeeded));
        figures.put("runs_with_a_second_attempt", String.valueOf(retried.size()));
        figures.put("failovers", String.valueOf(failovers.size()));
        figures.put("acknowledged", String.valueOf(acknowledged.size()));
        figures.put("lost", String.valueOf(lost));
        figures.put("stuck", String.valueOf(stuck));
        figures.put("failed", String.valueOf(failed));
        figures.put("recovery_s", Double.isNaN(worst) ? "NA" : String.format("%.1f", worst));
        StringBuilder text = new StringBuilder();
        figures.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Files.writeString(out, text);
        System.exit(lost + stuck + failed == 0 && unacknowledged.get() == 0 ? 0 : 1);
    }

    static String need(Map<String, String> a, String key) {
        String v = a.get(key);
        if (v == null) {
            System.err.println("missing --" + key);
            System.exit(2);
        }
        return v;
    }

    /** One start, retried with its key until acknowledged or three minutes are up. */
    static void start(String base, String workflow) {
        String key = "failover-" + UUID.randomUUID();
        String body = "{\"input\":{\"key\":\"" + key + "\"},\"idempotencyKey\":\"" + key + "\"}";
        long deadline = System.currentTimeMillis() + 180_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/workflows/" + workflow + "/runs"))
                        .timeout(Duration.ofSeconds(15)).header("Authorization", "Bearer " + token)
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                        HttpResponse.BodyHandlers.ofString());
                long now = System.currentTimeMillis();
                if (r.statusCode() == 201 || r.statusCode() == 200) {
                    Matcher m = RUN_ID.matcher(r.body());
                    if (m.find()) {
                        acknowledged.put(m.group(1), key);
                        events.add(new Event(now, "ack", m.group(1)));
                        return;
                    }
                    events.add(new Event(now, "error", r.statusCode() + " without a runId: " + abbreviate(r.body())));
                } else if (r.statusCode() == 503) {
                    got503.incrementAndGet();
                    events.add(new Event(now, "503", ""));
                } else {
                    events.add(new Event(now, "error", "HTTP " + r.statusCode() + ": " + abbreviate(r.body())));
                }
            } catch (IOException e) {
                events.add(new Event(System.currentTimeMillis(), "error", e.getClass().getSimpleName() + ": " + e.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        unacknowledged.incrementAndGet();
        System.out.println("start " + key + " never acknowledged");
    }

    /** SUCCEEDED, FAILED, CANCELLED, RUNNING, LOST (404) or UNKNOWN (no answer). */
    static String status(String base, String runId) {
        try {
            HttpResponse<String> r = get(base + "/api/v1/runs/" + runId);
            if (r.statusCode() == 404) {
                return "LOST";
            }
            if (r.statusCode() == 200) {
                Matcher m = STATUS.matcher(r.body());
                if (LATER_ATTEMPT.matcher(r.body()).find()) {
                    retried.put(runId, true);
                }
                return m.find() ? m.group(1) : "UNKNOWN";
            }
        } catch (IOException e) {
            // no answer now: asked again
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "UNKNOWN";
    }

    static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15))
                .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    static String abbreviate(String s) {
        String one = s.replaceAll("\\s+", " ");
        return one.length() > 200 ? one.substring(0, 200) + "..." : one;
    }
}
