// The backlog-sdk benchmark's starter: registers the workflow, then starts --runs runs of it as fast as --threads HTTP
// threads can (each a keep-alive connection, one start at a time), so that they are all queued before any worker
// runs a step. Nothing is waited for: the runs' progress is read from the database (DrainFigures.java).
//
// usage: java bench/backlog/StartRuns.java --register-url URL --admin-token FILE --register-body JSON
//          --start-url URL --client-token FILE [--runs 20000] [--threads 4]
// prints to stdout: started=<n> start_s=<seconds from the first start sent to the last answered> starts_per_s=<r>
// exit: 0 every run started, 3 a start or the registration answered non-2xx (503/429 are retried with the same
//       idempotency key after their Retry-After), 2 usage
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

public class StartRuns {
    static final int RETRIES = 50; // of one start answered 503 or 429: the pod's start queue is full, it drains in ms

    public static void main(String[] args) throws Exception {
        Map<String, String> o = options(args);
        for (String required : new String[] {"register-url", "admin-token", "register-body", "start-url", "client-token"}) {
            if (!o.containsKey(required)) {
                System.err.println("missing --" + required);
                System.exit(2);
            }
        }
        int runs = Integer.parseInt(o.getOrDefault("runs", "20000"));
        int threads = Integer.parseInt(o.getOrDefault("threads", "4"));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        String admin = Files.readString(Path.of(o.get("admin-token"))).trim();
        String client = Files.readString(Path.of(o.get("client-token"))).trim();

        HttpResponse<String> registered = http.send(HttpRequest.newBuilder(URI.create(o.get("register-url")))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + admin)
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(o.get("register-body")))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (registered.statusCode() != 200 && registered.statusCode() != 201) {
            System.err.println("PUT " + o.get("register-url") + " answered " + registered.statusCode() + ": " + registered.body());
            System.exit(3);
        }

        String nonce = UUID.randomUUID().toString().substring(0, 8); // idempotency keys unique to this invocation
        AtomicInteger next = new AtomicInteger();
        AtomicInteger started = new AtomicInteger();
        AtomicReference<String> error = new AtomicReference<>();
        long t0 = System.nanoTime();
        Thread[] starters = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            starters[t] = new Thread(() -> {
                int k;
                while (error.get() == null && (k = next.getAndIncrement()) < runs) {
                    String body = "{\"input\":{\"i\":" + k + "},\"idempotencyKey\":\"backlog-" + nonce + "-" + k + "\"}";
                    try {
                        start(http, o.get("start-url"), client, body);
                        int n = started.incrementAndGet();
                        if (n % 5000 == 0) {
                            System.err.printf("started %d of %d after %.1f s%n", n, runs, (System.nanoTime() - t0) / 1e9);
                        }
                    } catch (Exception e) {
                        error.compareAndSet(null, e.getMessage());
                    }
                }
            }, "starter-" + t);
            starters[t].start();
        }
        for (Thread s : starters) {
            s.join();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf("started=%d start_s=%.1f starts_per_s=%.1f%n", started.get(), seconds, started.get() / seconds);
        if (error.get() != null) {
            System.err.println(error.get());
            System.exit(3);
        }
    }

    static void start(HttpClient http, String url, String token, String body) throws Exception {
        for (int attempt = 0; ; attempt++) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 == 2) {
                return;
            }
            if ((r.statusCode() == 503 || r.statusCode() == 429) && attempt < RETRIES) {
                long seconds = r.headers().firstValue("Retry-After").map(Long::parseLong).orElse(1L);
                Thread.sleep(Math.max(100, Math.min(seconds, 5) * 1000));
                continue;
            }
            throw new IllegalStateException("POST " + url + " answered " + r.statusCode() + ": " + r.body());
        }
    }

    static Map<String, String> options(String[] args) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                System.err.println("unexpected argument: " + args[i]);
                System.exit(2);
            }
            o.put(args[i].substring(2), args[i + 1]);
        }
        if (args.length % 2 != 0) {
            System.err.println("option without a value: " + args[args.length - 1]);
            System.exit(2);
        }
        return o;
    }
}
