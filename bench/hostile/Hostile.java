// The hostile-client trial (bench/run.sh hostile, docs/benchmarks.md "hostile"): tenant A runs a steady workload of
// small chains while tenant B sends every hostile request of issue 28's findings; prints what each answer was and A's
// throughput before and during the attack. JDK only, single-file launch:
//
//   java bench/hostile/Hostile.java <base-url> <token-dir> <pod-port> <pg-port> <out-file>
//
// <token-dir> holds a-admin.jwt, a-client.jwt, b-admin.jwt, b-client-<i>.jwt and b-worker-<i>.jwt (i = 0..9: ten callers
// of tenant B, each its own token subject). Figures go to <out-file> as key=value lines.
//
// Every hostile request is classified by its answer: a problem (4xx or 503, application/problem+json) is what a
// hostile request should get; a 2xx is counted as admitted, and each kind says how many it may admit (the bounds:
// long polls and streams per caller and tenant, pending signals per run; a run list within its limit); anything else
// (a 5xx other than 503, a non-problem error, no answer at all, more admitted than the bound) is a non-problem answer.
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Hostile {

    static final int CALLERS = 10;
    static final int WARMUP_S = Integer.getInteger("hostile.warmup-s", 10);
    static final int BEFORE_S = Integer.getInteger("hostile.before-s", 20);
    static final int HOLD_S = Integer.getInteger("hostile.hold-s", 20);
    static final int A_CLIENTS = Integer.getInteger("hostile.a-clients", 4);
    static final int BIG_RUNS = Integer.getInteger("hostile.big-runs", 100);
    static final Pattern STATUS = Pattern.compile("\"status\"\\s*:\\s*\"([A-Z]+)\"");
    static final Pattern RUN_ID = Pattern.compile("\"runId\"\\s*:\\s*\"([0-9a-f-]{36})\"");

    final String base;
    final Path tokens;
    final int podPort;
    final int pgPort;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).executor(Executors.newCachedThreadPool(daemon())).build();

    /** What each kind of hostile request got: answers, problems, admitted (2xx), anything else. */
    static final class Kind {
        final String name;
        final int mayAdmit;
        final AtomicInteger sent = new AtomicInteger();
        final AtomicInteger problems = new AtomicInteger();
        final AtomicInteger admitted = new AtomicInteger();
        final AtomicInteger other = new AtomicInteger();
        final Map<String, AtomicInteger> statuses = new ConcurrentHashMap<>();
        volatile String firstOther;

        Kind(String name, int mayAdmit) {
            this.name = name;
            this.mayAdmit = mayAdmit;
        }

        void record(int status, String contentType, String body) {
            sent.incrementAndGet();
            statuses.computeIfAbsent(Integer.toString(status), k -> new AtomicInteger()).incrementAndGet();
            boolean problem = (status >= 400 && status < 500 || status == 503)
                    && contentType != null && contentType.startsWith("application/problem+json");
            if (problem) {
                problems.incrementAndGet();
            } else if (status >= 200 && status < 300) {
                admitted.incrementAndGet();
            } else {
                other.incrementAndGet();
                if (firstOther == null) {
                    firstOther = status + " " + contentType + " " + (body == null ? "" : body.substring(0, Math.min(200, body.length())));
                }
            }
        }

        void noAnswer(Throwable e) {
            sent.incrementAndGet();
            statuses.computeIfAbsent("none", k -> new AtomicInteger()).incrementAndGet();
            other.incrementAndGet();
            if (firstOther == null) {
                firstOther = "no answer: " + e;
            }
        }

        /** The same answers, checked against another bound. */
        Kind withBound(int bound) {
            Kind k = new Kind(name, bound);
            k.sent.set(sent.get());
            k.problems.set(problems.get());
            k.admitted.set(admitted.get());
            k.other.set(other.get());
            k.statuses.putAll(statuses);
            k.firstOther = firstOther;
            return k;
        }

        int nonProblem() {
            return other.get() + Math.max(0, admitted.get() - mayAdmit);
        }
    }

    long podPid = -1;

    /** CPU seconds of the pod (from /proc) and of this JVM (the attacker and A's clients share it), or -1. */
    double[] cpu() {
        double pod = -1;
        try {
            String stat = Files.readString(Path.of("/proc/" + podPid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            pod = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime in clock ticks (USER_HZ 100)
        } catch (Exception e) {
            // no pod pid given, or not on Linux
        }
        double self = ProcessHandle.current().info().totalCpuDuration().map(d -> d.toMillis() / 1000.0).orElse(-1.0);
        return new double[] {pod, self};
    }

    final Map<String, Kind> kinds = Collections.synchronizedMap(new LinkedHashMap<>());

    Kind kind(String name, int mayAdmit) {
        return kinds.computeIfAbsent(name, n -> new Kind(n, mayAdmit));
    }

    Hostile(String base, Path tokens, int podPort, int pgPort) {
        this.base = base;
        this.tokens = tokens;
        this.podPort = podPort;
        this.pgPort = pgPort;
    }

    public static void main(String[] args) throws Exception {
        Hostile trial = new Hostile(args[0], Path.of(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        trial.podPid = args.length > 5 ? Long.parseLong(args[5]) : -1;
        Map<String, String> figures = trial.run();
        StringBuilder out = new StringBuilder();
        figures.forEach((k, v) -> out.append(k).append('=').append(v).append('\n'));
        Files.writeString(Path.of(args[4]), out.toString());
        System.out.print(out);
        System.exit(0); // open streams' threads must not keep the JVM
    }

    // ---- HTTP ---------------------------------------------------------------------------------------------------

    String token(String name) {
        try {
            return Files.readString(tokens.resolve(name + ".jwt")).trim();
        } catch (IOException e) {
            throw new IllegalStateException("no token " + name, e);
        }
    }

    HttpRequest.Builder request(String path, String token) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(120))
                .header("Authorization", "Bearer " + token).header("Accept", "application/json");
    }

    HttpResponse<String> send(String method, String path, String token, String body) throws IOException, InterruptedException {
        HttpRequest.Builder r = request(path, token);
        if (body == null) {
            r.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            r.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Sends and records the answer under {@code kind}. */
    void hostile(Kind kind, HttpRequest request) {
        try {
            HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
            kind.record(answer.statusCode(), answer.headers().firstValue("Content-Type").orElse(null), answer.body());
        } catch (IOException e) {
            kind.noAnswer(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void hostile(Kind kind, String method, String path, String token, String body) {
        HttpRequest.Builder r = request(path, token);
        if (body == null) {
            r.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            r.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        hostile(kind, r.build());
    }

    static String expect(HttpResponse<String> answer, int... statuses) {
        for (int s : statuses) {
            if (answer.statusCode() == s) {
                return answer.body();
            }
        }
        throw new IllegalStateException("setup call answered " + answer.statusCode() + ": " + answer.body());
    }

    static String runId(String body) {
        Matcher m = RUN_ID.matcher(body);
        if (!m.find()) {
            throw new IllegalStateException("no runId in " + body);
        }
        return m.group(1);
    }

    static String find(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? m.group(1) : null;
    }

    static String status(String body) {
        Matcher m = STATUS.matcher(body);
        return m.find() ? m.group(1) : "?";
    }

    static java.util.concurrent.ThreadFactory daemon() {
        return r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        };
    }

    // ---- tenant A: the steady workload --------------------------------------------------------------------------

    final ConcurrentLinkedQueue<Long> finished = new ConcurrentLinkedQueue<>();
    final AtomicBoolean stopA = new AtomicBoolean();
    final AtomicLong aFailed = new AtomicLong();

    void tenantA() {
        String client = token("a-client");
        while (!stopA.get()) {
            try {
                String id = runId(expect(send("POST", "/api/v1/workflows/chain-a/runs", client, "{\"input\":{\"n\":1}}"), 201));
                while (!stopA.get()) {
                    String s = status(send("GET", "/api/v1/runs/" + id, client, null).body());
                    if (s.equals("SUCCEEDED")) {
                        finished.add(System.nanoTime());
                        break;
                    }
                    if (s.equals("FAILED") || s.equals("CANCELLED")) {
                        aFailed.incrementAndGet();
                        break;
                    }
                    Thread.sleep(10);
                }
            } catch (Exception e) {
                aFailed.incrementAndGet();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    double rate(long from, long to) {
        long n = finished.stream().filter(t -> t >= from && t < to).count();
        return n / ((to - from) / 1e9);
    }

    // ---- the trial ----------------------------------------------------------------------------------------------

    Map<String, String> run() throws Exception {
        String aAdmin = token("a-admin");
        String bAdmin = token("b-admin");
        String bClient = token("b-client-0");
        expect(send("PUT", "/api/v1/workflows/chain-a", aAdmin, "{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"},"
                + "{\"id\":\"b\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"a\"]},"
                + "{\"id\":\"c\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"b\"]}]}"), 200, 201);
        // B: a run whose signals pile up (its first node waits for an external worker that never comes), a run that
        // waits (big inputs, streams), and http steps to where no step may go.
        expect(send("PUT", "/api/v1/workflows/b-gate", bAdmin, "{\"nodes\":[{\"id\":\"work\",\"type\":\"task\",\"handler\":\"ext:nobody\"},"
                + "{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"go\",\"dependsOn\":[\"work\"]}]}"), 200, 201);
        expect(send("PUT", "/api/v1/workflows/b-wait", bAdmin, "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"go\"}]}"), 200, 201);
        expect(send("PUT", "/api/v1/workflows/b-egress", bAdmin, "{\"nodes\":[{\"id\":\"call\",\"type\":\"task\",\"handler\":\"http\","
                + "\"input\":{\"url\":\"" + forbiddenUrls().get(0) + "\"}}]}"), 200, 201);
        // the URL from the run's input, as a client chooses it
        expect(send("PUT", "/api/v1/workflows/b-egress-input", bAdmin, "{\"nodes\":[{\"id\":\"call\",\"type\":\"task\",\"handler\":\"http\"}]}"), 200, 201);
        String gateRun = runId(expect(send("POST", "/api/v1/workflows/b-gate/runs", bClient, "{\"input\":{}}"), 201));
        String waitRun = runId(expect(send("POST", "/api/v1/workflows/b-wait/runs", bClient, "{\"input\":{}}"), 201));
        // runs with 250 KiB inputs for the run list (setup, not counted as hostile)
        String big = "x".repeat(250 * 1024);
        ExecutorService setup = Executors.newFixedThreadPool(4, daemon());
        List<CompletableFuture<Void>> bigStarts = new ArrayList<>();
        for (int i = 0; i < BIG_RUNS; i++) {
            bigStarts.add(CompletableFuture.runAsync(() -> {
                try {
                    expect(send("POST", "/api/v1/workflows/b-wait/runs", bClient, "{\"input\":{\"blob\":\"" + big + "\"}}"), 201);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, setup));
        }
        CompletableFuture.allOf(bigStarts.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
        setup.shutdown();

        // A's workload: warm-up, then "before"
        ExecutorService aThreads = Executors.newFixedThreadPool(A_CLIENTS, daemon());
        for (int i = 0; i < A_CLIENTS; i++) {
            aThreads.execute(this::tenantA);
        }
        Thread.sleep(WARMUP_S * 1000L);
        long beforeFrom = System.nanoTime();
        double[] cpuBeforeFrom = cpu();
        Thread.sleep(BEFORE_S * 1000L);
        long beforeTo = System.nanoTime();
        double[] cpuBeforeTo = cpu();

        // the attack
        long attackFrom = System.nanoTime();
        ExecutorService attackers = Executors.newFixedThreadPool(32, daemon());
        List<CompletableFuture<?>> parts = new ArrayList<>();
        parts.add(CompletableFuture.runAsync(() -> numbers(gateRun), attackers));
        parts.add(CompletableFuture.runAsync(() -> nesting(gateRun), attackers));
        parts.add(CompletableFuture.runAsync(() -> strings(gateRun), attackers));
        parts.add(CompletableFuture.runAsync(this::bodies, attackers));
        parts.add(CompletableFuture.runAsync(this::claims, attackers));
        parts.add(CompletableFuture.runAsync(this::runLists, attackers));
        parts.add(CompletableFuture.runAsync(() -> signals(gateRun, attackers), attackers));
        CompletableFuture<int[]> egressOutcome = CompletableFuture.supplyAsync(this::egress, attackers);
        CompletableFuture<Void> polls = CompletableFuture.runAsync(this::longPolls, attackers);
        CompletableFuture<Void> streams = CompletableFuture.runAsync(() -> streams(waitRun), attackers);
        parts.add(polls);
        parts.add(streams);
        parts.add(egressOutcome);
        CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
        long attackTo = System.nanoTime();
        double[] cpuAttackTo = cpu();
        attackers.shutdownNow();
        // A keeps going a moment after, so that the last window is counted whole
        stopA.set(true);
        aThreads.shutdown();
        aThreads.awaitTermination(30, TimeUnit.SECONDS);

        Map<String, String> f = new LinkedHashMap<>();
        int hostile = 0;
        int nonProblem = 0;
        int admitted = 0;
        for (Kind k : kinds.values()) {
            hostile += k.sent.get();
            nonProblem += k.nonProblem();
            admitted += k.admitted.get();
            f.put("kind_" + k.name, "sent:" + k.sent + ",problems:" + k.problems + ",admitted:" + k.admitted + "/" + k.mayAdmit
                    + ",other:" + k.other + ",statuses:" + new java.util.TreeMap<>(k.statuses));
            if (k.firstOther != null) {
                f.put("kind_" + k.name + "_first_other", k.firstOther.replace('\n', ' '));
            }
        }
        int[] eg = egressOutcome.get();
        f.put("egress_steps", Integer.toString(eg[0]));
        f.put("egress_denied", Integer.toString(eg[1]));
        f.put("egress_reached", Integer.toString(eg[0] - eg[1]));
        nonProblem += eg[0] - eg[1];
        f.put("run_list_max_bytes", Long.toString(listMaxBytes.get()));
        f.put("long_polls_check", pollsConclusive ? "conclusive" : "inconclusive(arrivals spread past hostile.hold-s)");
        f.put("admitted_within_bounds", Integer.toString(admitted));
        f.put("a_failed", Long.toString(aFailed.get()));
        f.put("attack_s", String.format("%.1f", (attackTo - attackFrom) / 1e9));
        // CPU per wall second (2.0 = both cores of this host): the pod's, and this JVM's (A's clients and the attacker)
        f.put("pod_cpu_per_s_before", String.format("%.2f", (cpuBeforeTo[0] - cpuBeforeFrom[0]) / ((beforeTo - beforeFrom) / 1e9)));
        f.put("pod_cpu_per_s_during", String.format("%.2f", (cpuAttackTo[0] - cpuBeforeTo[0]) / ((attackTo - beforeTo) / 1e9)));
        f.put("client_cpu_per_s_before", String.format("%.2f", (cpuBeforeTo[1] - cpuBeforeFrom[1]) / ((beforeTo - beforeFrom) / 1e9)));
        f.put("client_cpu_per_s_during", String.format("%.2f", (cpuAttackTo[1] - cpuBeforeTo[1]) / ((attackTo - beforeTo) / 1e9)));
        double before = rate(beforeFrom, beforeTo);
        double during = rate(attackFrom, attackTo);
        f.put("hostile_requests", Integer.toString(hostile));
        f.put("non_problem_answers", Integer.toString(nonProblem));
        f.put("a_runs_per_s_before", String.format("%.1f", before));
        f.put("a_runs_per_s_during", String.format("%.1f", during));
        f.put("during_vs_before", before > 0 ? String.format("%.2f", during / before) : "NA");
        return f;
    }

    // ---- the hostile requests -----------------------------------------------------------------------------------

    static final List<String> HUGE_NUMBERS = List.of("1e999999999", "-1e999999999", "1e-999999999", "1.5e1000",
            "123456789e99999999", "0.000001e-99999999", "9".repeat(5000));

    void numbers(String runId) {
        Kind k = kind("huge-numbers", 0);
        String client = token("b-client-1");
        int i = 0;
        for (String n : HUGE_NUMBERS) {
            i++;
            hostile(k, "POST", "/api/v1/events", client, "{\"type\":\"x\",\"idempotencyKey\":\"n" + i + "\",\"payload\":" + n + "}");
            hostile(k, "POST", "/api/v1/events", client, "{\"type\":\"x\",\"idempotencyKey\":\"n" + i + "b\",\"payload\":{\"price\":[1," + n + "]}}");
            hostile(k, "POST", "/api/v1/workflows/b-wait/runs", client, "{\"input\":{\"amount\":" + n + "},\"idempotencyKey\":\"s" + i + "\"}");
            hostile(k, "POST", "/api/v1/workflows/b-wait/runs", client, "{\"input\":" + n + "}");
            hostile(k, "POST", "/api/v1/runs/" + runId + "/signals", client, "{\"name\":\"go\",\"payload\":" + n + ",\"idempotencyKey\":\"g" + i + "\"}");
        }
    }

    void nesting(String runId) {
        Kind k = kind("deep-nesting", 0);
        String client = token("b-client-2");
        for (int depth : new int[] {101, 600, 100_000}) {
            String arrays = "[".repeat(depth) + "]".repeat(depth);
            String objects = "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
            for (String doc : List.of(arrays, objects)) {
                hostile(k, "POST", "/api/v1/events", client, "{\"type\":\"x\",\"idempotencyKey\":\"d" + depth + "\",\"payload\":" + doc + "}");
                hostile(k, "POST", "/api/v1/workflows/b-wait/runs", client, "{\"input\":" + doc + "}");
                hostile(k, "POST", "/api/v1/runs/" + runId + "/signals", client, "{\"name\":\"go\",\"payload\":" + doc + ",\"idempotencyKey\":\"d" + depth + "\"}");
            }
        }
    }

    void strings(String runId) {
        Kind k = kind("huge-strings", 0);
        String client = token("b-client-3");
        String s = "y".repeat(900 * 1024);
        hostile(k, "POST", "/api/v1/events", client, "{\"type\":\"x\",\"idempotencyKey\":\"h1\",\"payload\":\"" + s + "\"}");
        hostile(k, "POST", "/api/v1/events", client, "{\"type\":\"x\",\"idempotencyKey\":\"h2\",\"payload\":{\"" + s + "\":1}}");
        hostile(k, "POST", "/api/v1/events", client, "{\"type\":\"" + s + "\",\"idempotencyKey\":\"h3\"}");
        hostile(k, "POST", "/api/v1/events", client, "{\"type\":\"x\",\"idempotencyKey\":\"" + "k".repeat(100_000) + "\"}");
        hostile(k, "POST", "/api/v1/workflows/b-wait/runs", client, "{\"input\":{\"s\":\"" + s + "\"}}");
        hostile(k, "POST", "/api/v1/workflows/b-wait/runs", client, "{\"input\":{},\"idempotencyKey\":\"" + "k".repeat(100_000) + "\"}");
        hostile(k, "POST", "/api/v1/runs/" + runId + "/signals", client, "{\"name\":\"" + s + "\",\"idempotencyKey\":\"h4\"}");
        hostile(k, "POST", "/api/v1/runs/" + runId + "/signals", client, "{\"name\":\"go\",\"payload\":\"" + s + "\",\"idempotencyKey\":\"h5\"}");
        hostile(k, "PUT", "/api/v1/workflows/b-huge", token("b-admin"), "{\"nodes\":[{\"id\":\"" + s + "\",\"type\":\"task\",\"handler\":\"noop\"}]}");
    }

    static byte[] event(int bytes) {
        byte[] body = new byte[bytes];
        java.util.Arrays.fill(body, (byte) 'z');
        byte[] head = "{\"type\":\"x\",\"idempotencyKey\":\"big\",\"payload\":\"".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, body, 0, head.length);
        body[bytes - 2] = '"';
        body[bytes - 1] = '}';
        return body;
    }

    void bodies() {
        Kind withLength = kind("body-over-1MiB-content-length", 0);
        Kind chunked = kind("body-over-1MiB-chunked", 0);
        String client = token("b-client-4");
        for (int bytes : new int[] {1024 * 1024 + 1, 5 * 1024 * 1024, 20 * 1000 * 1000}) {
            byte[] body = event(bytes);
            hostile(withLength, request("/api/v1/events", client).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
            // ofInputStream: no Content-Length, sent in chunks
            hostile(chunked, request("/api/v1/events", client).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).build());
            hostile(chunked, request("/api/v1/workflows/b-wait/runs", client).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).build());
        }
    }

    void claims() {
        Kind k = kind("claims-of-in-process-handlers", 0);
        String worker = token("b-worker-9");
        for (String handlers : List.of("[\"http\"]", "[\"echo\"]", "[\"noop\"]", "[\"sleep\"]", "[\"fail\"]", "[\"ext:x\",\"http\"]",
                "[\"EXT:http\"]")) {
            for (int i = 0; i < 5; i++) {
                hostile(k, "POST", "/api/v1/tasks/claim", worker, "{\"handlers\":" + handlers + ",\"workerId\":\"w\",\"max\":100,\"waitSeconds\":0}");
            }
        }
    }

    final AtomicLong listMaxBytes = new AtomicLong();

    void runLists() {
        Kind over = kind("run-list-limit-500", 0);
        Kind within = kind("run-list-limit-200", 20);
        String client = token("b-client-5");
        for (int i = 0; i < 20; i++) {
            hostile(over, "GET", "/api/v1/runs?limit=500", client, null);
            try {
                HttpResponse<String> page = send("GET", "/api/v1/runs?limit=200", client, null);
                within.record(page.statusCode(), page.headers().firstValue("Content-Type").orElse(null), page.body());
                listMaxBytes.accumulateAndGet(page.body().length(), Math::max);
            } catch (IOException e) {
                within.noAnswer(e);
            } catch (InterruptedException e) {
                return;
            }
            hostile(over, "GET", "/api/v1/runs/" + UUID.randomUUID() + "/history?limit=100000", client, null);
        }
    }

    void signals(String runId, ExecutorService pool) {
        Kind k = kind("pending-signals-2000-on-one-run", 1000);
        String client = token("b-client-6");
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        ExecutorService senders = Executors.newFixedThreadPool(8, daemon());
        for (int i = 0; i < 2000; i++) {
            int n = i;
            sent.add(CompletableFuture.runAsync(() -> hostile(k, "POST", "/api/v1/runs/" + runId + "/signals", client,
                    "{\"name\":\"go\",\"payload\":{\"n\":" + n + "},\"idempotencyKey\":\"p" + n + "\"}"), senders));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
        senders.shutdown();
    }

    /** Whether every poll arrived before the first admitted one ended: only then is "admitted" "held at once". */
    volatile boolean pollsConclusive = true;

    /**
     * 300 long polls from 10 worker subjects at once: at most the tenant's 32 held at once, each caller's 8. A poll
     * that ended gives its place to a later one, rightly admitted; so the count of admitted polls is checked against the
     * bound only when the refusals (answered on arrival) all came within the hold, else the check is inconclusive.
     */
    void longPolls() {
        Kind k = kind("long-polls-300", 32);
        List<Long> refusedAt = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> polls = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String worker = token("b-worker-" + (i % CALLERS));
            HttpRequest r = request("/api/v1/tasks/claim", worker).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"handlers\":[\"ext:nothing\"],\"workerId\":\"w" + i
                            + "\",\"max\":1,\"waitSeconds\":" + HOLD_S + "}")).build();
            polls.add(http.sendAsync(r, HttpResponse.BodyHandlers.ofString()).handle((answer, failed) -> {
                if (failed != null) {
                    k.noAnswer(failed);
                } else {
                    k.record(answer.statusCode(), answer.headers().firstValue("Content-Type").orElse(null), answer.body());
                    if (answer.statusCode() != 200) {
                        refusedAt.add(System.nanoTime());
                    }
                }
                return null;
            }));
        }
        CompletableFuture.allOf(polls.toArray(CompletableFuture[]::new)).join();
        synchronized (refusedAt) {
            if (!refusedAt.isEmpty()) {
                long spread = Collections.max(refusedAt) - Collections.min(refusedAt);
                pollsConclusive = spread < TimeUnit.SECONDS.toNanos(HOLD_S);
            }
        }
        if (!pollsConclusive) {
            kinds.put(k.name, k.withBound(Integer.MAX_VALUE));
        }
    }

    /** 300 live streams of one run from 10 client subjects, held for the attack: at most the tenant's 64 open. */
    void streams(String runId) {
        Kind k = kind("sse-streams-300", 64);
        List<InputStream> open = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            HttpRequest r = request("/api/v1/runs/" + runId + "/events", token("b-client-" + (i % CALLERS)))
                    .header("Accept", "text/event-stream").timeout(Duration.ofSeconds(HOLD_S + 60)).GET().build();
            all.add(http.sendAsync(r, HttpResponse.BodyHandlers.ofInputStream()).handle((answer, failed) -> {
                if (failed != null) {
                    k.noAnswer(failed);
                    return null;
                }
                String type = answer.headers().firstValue("Content-Type").orElse(null);
                if (answer.statusCode() == 200) {
                    k.record(200, type, null);
                    open.add(answer.body());
                } else {
                    try (InputStream body = answer.body()) {
                        k.record(answer.statusCode(), type, new String(body.readAllBytes(), StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        k.record(answer.statusCode(), type, null);
                    }
                }
                return null;
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        try {
            Thread.sleep(HOLD_S * 1000L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (open) {
            for (InputStream s : open) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
    }

    List<String> forbiddenUrls() {
        return List.of("http://127.0.0.1:" + podPort + "/q/metrics", "http://localhost:" + podPort + "/api/v1/runs",
                "http://169.254.169.254/latest/meta-data/iam/", "http://[::1]:" + pgPort + "/", "http://127.0.0.1:" + pgPort + "/",
                "http://[fe80::1]/", "http://0.0.0.0:" + podPort + "/q/health", "http://10.0.0.1/", "http://192.168.1.1/");
    }

    /** http steps to loopback, link-local, private ranges, the pod and PostgreSQL: {steps, denied}. */
    int[] egress() {
        String client = token("b-client-7");
        try {
            // One run per URL (a run's failing node would cancel its siblings before they try): the URL in the
            // definition (b-egress, its first node) and, as a client chooses it, from the run's input.
            List<String> runs = new ArrayList<>();
            runs.add(runId(expect(send("POST", "/api/v1/workflows/b-egress/runs", client, "{\"input\":{}}"), 201)));
            for (String url : forbiddenUrls()) {
                runs.add(runId(expect(send("POST", "/api/v1/workflows/b-egress-input/runs", client, "{\"input\":{\"url\":\"" + url + "\"}}"), 201)));
            }
            int steps = 0;
            int denied = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            for (String id : runs) {
                String body;
                do {
                    body = send("GET", "/api/v1/runs/" + id, client, null).body();
                    Thread.sleep(200);
                } while (status(body).equals("RUNNING") && System.nanoTime() < deadline);
                Matcher node = Pattern.compile("\"(call[0-9]*)\":\\{([^}]*)}").matcher(body);
                while (node.find()) {
                    steps++;
                    String state = find(node.group(2), "\"state\":\"([A-Z]+)\"");
                    String error = find(node.group(2), "\"error\":\"((?:[^\"\\\\]|\\\\.)*)\"");
                    if ("FAILED".equals(state) && error != null && error.contains("refused")) {
                        denied++;
                    } else {
                        System.err.println("egress step not denied: " + node.group());
                    }
                }
            }
            return new int[] {steps, denied};
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
