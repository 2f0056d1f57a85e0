// The training workload of src/main/aot/train-aot-cache.sh: what a pod does under load, for long enough that the
// JDK 25 AOT cache records the classes and the method profiles (JEP 515) of the hot paths, not only of start-up.
// Run with a JDK 17+ (the source launcher; the image's JRE has none), against the training JVM over HTTP:
//
//   java src/main/aot/TrainingLoad.java <base url> <tokens dir> <seconds> [starters]
//
// <tokens dir> holds admin.jwt, client.jwt and worker.jwt. For <seconds>, in parallel:
//   - <starters> threads (default 4) start runs of a chain of three in-process noop steps in a closed loop, with
//     idempotency keys (run starts, group commits, eager dispatch, the coordinator's and workers' claims);
//   - one thread starts runs of a workflow with an external step, a signal and an echo step, and signals them;
//   - one external worker claims the external steps (long poll) and reports them, batched and one by one;
//   - one reader follows a run's server-sent events as the console does, and reads runs, histories and lists.
// Prints one line: train_starts=<n> train_external_reports=<m> train_signals=<s> train_sse_events=<e>
// train_errors=<x>; exits 1 when no run could be started or a start was refused.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class TrainingLoad {
    static final Pattern RUN_ID = Pattern.compile("\"runId\"\\s*:\\s*\"([^\"]+)\"");
    static final Pattern TASK_ID = Pattern.compile("\"taskId\"\\s*:\\s*\"([^\"]+)\"");
    static final Pattern LEASE = Pattern.compile("\"leaseToken\"\\s*:\\s*\"([^\"]+)\"");

    final String base;
    final String admin, client, worker;
    final long deadline;
    final String nonce = Long.toString(System.currentTimeMillis(), 36);
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    final AtomicInteger starts = new AtomicInteger(), reports = new AtomicInteger(), signals = new AtomicInteger(),
            sseEvents = new AtomicInteger(), errors = new AtomicInteger(), refused = new AtomicInteger();
    final ConcurrentLinkedDeque<String> recent = new ConcurrentLinkedDeque<>();

    TrainingLoad(String base, Path tokens, long seconds) throws Exception {
        this.base = base.replaceAll("/+$", "") + "/api/v1";
        admin = Files.readString(tokens.resolve("admin.jwt")).trim();
        client = Files.readString(tokens.resolve("client.jwt")).trim();
        worker = Files.readString(tokens.resolve("worker.jwt")).trim();
        deadline = System.nanoTime() + seconds * 1_000_000_000L;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: TrainingLoad <base url> <tokens dir> <seconds> [starters]");
            System.exit(2);
        }
        TrainingLoad t = new TrainingLoad(args[0], Path.of(args[1]), Long.parseLong(args[2]));
        int starters = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        t.define();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < starters; i++) {
            int n = i;
            threads.add(new Thread(() -> t.chains(n), "starter-" + i));
        }
        threads.add(new Thread(t::externalRuns, "external-starter"));
        threads.add(new Thread(t::externalWorker, "external-worker"));
        threads.add(new Thread(t::reader, "reader"));
        threads.forEach(Thread::start);
        for (Thread th : threads) {
            th.join();
        }
        System.out.println("train_starts=" + t.starts + " train_external_reports=" + t.reports + " train_signals="
                + t.signals + " train_sse_events=" + t.sseEvents + " train_errors=" + t.errors);
        System.exit(t.starts.get() == 0 || t.refused.get() > 0 ? 1 : 0);
    }

    boolean running() {
        return System.nanoTime() < deadline;
    }

    HttpRequest.Builder request(String path, String token) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json");
    }

    HttpResponse<String> send(HttpRequest r) {
        try {
            HttpResponse<String> a = http.send(r, HttpResponse.BodyHandlers.ofString());
            if (a.statusCode() / 100 != 2) {
                errors.incrementAndGet();
            }
            return a;
        } catch (Exception e) {
            errors.incrementAndGet();
            return null;
        }
    }

    String post(String path, String token, String body) {
        HttpResponse<String> a = send(request(path, token).POST(HttpRequest.BodyPublishers.ofString(body)).build());
        return a == null || a.statusCode() / 100 != 2 ? null : a.body();
    }

    void get(String path, String token) {
        send(request(path, token).GET().build());
    }

    /** The two training workflows (an existing one from an earlier training is updated with its ETag). */
    void define() throws Exception {
        put("aot-chain", "{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"},"
                + " {\"id\": \"b\", \"type\": \"task\", \"handler\": \"noop\", \"dependsOn\": [\"a\"]},"
                + " {\"id\": \"c\", \"type\": \"task\", \"handler\": \"noop\", \"dependsOn\": [\"b\"]}]}");
        put("aot-external", "{\"output\": {\"got\": \"${{ nodes.report.output }}\"}, \"nodes\": ["
                + " {\"id\": \"ext\", \"type\": \"task\", \"handler\": \"ext:aot-train\", \"input\": {\"n\": \"${{ input.n }}\"}},"
                + " {\"id\": \"go\", \"type\": \"signal\", \"signal\": \"go\", \"timeout\": \"PT1M\", \"dependsOn\": [\"ext\"]},"
                + " {\"id\": \"report\", \"type\": \"task\", \"handler\": \"echo\", \"dependsOn\": [\"go\"],"
                + " \"input\": {\"ext\": \"${{ nodes.ext.output }}\", \"signal\": \"${{ nodes.go.output }}\"}}]}");
    }

    void put(String name, String body) throws Exception {
        HttpResponse<String> a = http.send(request("/workflows/" + name, admin)
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (a.statusCode() == 428 || a.statusCode() == 409) { // defined by an earlier training: a new revision
            String etag = http.send(request("/workflows/" + name, admin).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).headers().firstValue("ETag").orElse("\"0\"");
            a = http.send(request("/workflows/" + name, admin).header("If-Match", etag)
                    .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        }
        if (a.statusCode() / 100 != 2) {
            throw new IllegalStateException("PUT /workflows/" + name + " answered " + a.statusCode() + ": " + a.body());
        }
    }

    /** A closed loop of chain starts, as a busy client sends them. */
    void chains(int thread) {
        for (int i = 0; running(); i++) {
            String body = post("/workflows/aot-chain/runs", client, "{\"input\": {\"i\": " + i
                    + "}, \"idempotencyKey\": \"aot-" + nonce + "-" + thread + "-" + i + "\"}");
            if (body == null) {
                refused.incrementAndGet();
                sleep(100);
                continue;
            }
            starts.incrementAndGet();
            Matcher m = RUN_ID.matcher(body);
            if (m.find() && i % 50 == 0) {
                remember(m.group(1));
            }
        }
    }

    /** Runs with an external step and a signal, a few a second; each is signalled at once (delivered when it waits). */
    void externalRuns() {
        for (int i = 0; running(); i++) {
            String body = post("/workflows/aot-external/runs", client, "{\"input\": {\"n\": " + i
                    + "}, \"tags\": {\"training\": \"aot\"}}");
            Matcher m = body == null ? null : RUN_ID.matcher(body);
            if (m != null && m.find()) {
                starts.incrementAndGet();
                remember(m.group(1));
                if (post("/runs/" + m.group(1) + "/signals", client, "{\"name\": \"go\", \"payload\": {\"i\": " + i
                        + "}, \"idempotencyKey\": \"aot-go-" + nonce + "-" + i + "\"}") != null) {
                    signals.incrementAndGet();
                }
            }
            sleep(20);
        }
    }

    /** An external worker: long-poll claims, results reported in batches (and every fourth one by one). */
    void externalWorker() {
        String workerId = "aot-training-" + nonce;
        String claim = "{\"handlers\": [\"ext:aot-train\"], \"workerId\": \"" + workerId + "\", \"max\": 8, \"waitSeconds\": 1}";
        for (int round = 0; running(); round++) {
            String body = post("/tasks/claim", worker, claim);
            if (body == null) {
                sleep(100);
                continue;
            }
            List<String[]> tasks = new ArrayList<>(); // each task's id and lease token, in the answer's order
            Matcher id = TASK_ID.matcher(body), lease = LEASE.matcher(body);
            while (id.find() && lease.find()) {
                tasks.add(new String[] {id.group(1), lease.group(1)});
            }
            if (tasks.isEmpty()) {
                continue;
            }
            if (round % 4 == 0) {
                for (String[] t : tasks) {
                    if (post("/tasks/" + t[0] + "/complete", worker, "{\"leaseToken\": \"" + t[1]
                            + "\", \"output\": {\"done\": true}}") != null) {
                        reports.incrementAndGet();
                    }
                }
            } else {
                StringBuilder results = new StringBuilder();
                for (String[] t : tasks) {
                    results.append(results.length() == 0 ? "" : ", ").append("{\"taskId\": \"").append(t[0])
                            .append("\", \"leaseToken\": \"").append(t[1]).append("\", \"output\": {\"done\": true}}");
                }
                if (post("/tasks/report", worker, "{\"results\": [" + results + "]}") != null) {
                    reports.addAndGet(tasks.size());
                }
            }
        }
    }

    /** What an operator's console does: follow a run's events, read runs, their histories and the run list. */
    void reader() {
        while (running()) {
            String id = recent.peekFirst();
            if (id == null) {
                sleep(100);
                continue;
            }
            follow(id);
            get("/runs/" + id, client);
            get("/runs/" + id + "/history", client);
            get("/runs?workflow=aot-chain&limit=20", client);
            get("/runs?tag=training:aot&status=SUCCEEDED&limit=20", client);
            sleep(200);
        }
    }

    /** Reads a run's server-sent events for up to two seconds (the stream ends by itself once the run is done). */
    void follow(String id) {
        try {
            HttpResponse<java.io.InputStream> a = http.send(request("/runs/" + id + "/events", client)
                    .header("Accept", "text/event-stream").timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            Thread closer = new Thread(() -> { // a live run's stream stays open: it is cut after two seconds
                sleep(2000);
                try {
                    a.body().close();
                } catch (java.io.IOException e) {
                    // closed already
                }
            }, "sse-closer");
            closer.setDaemon(true);
            closer.start();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(a.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("event:")) {
                        sseEvents.incrementAndGet();
                    }
                }
            }
        } catch (Exception e) {
            // a stream cut at its timeout is expected
        }
    }

    void remember(String id) {
        recent.addFirst(id);
        while (recent.size() > 100) {
            recent.pollLast();
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
