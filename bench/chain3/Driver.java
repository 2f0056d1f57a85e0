// The load driver of the chain3 benchmark, the same for Ductor and for the reference so both are measured the
// same way: a closed loop of starter threads POSTs run starts over HTTP/1.1 keep-alive, and completion is read
// from the database (not the API, so polling run status never loads the system under test): every 100 ms a poller
// looks up, by primary key, which of the runs still open are terminal. Warm-up batches are started and waited for
// first (JIT, caches, pool), at least --warmup runs and --warmup-min-s seconds, then the measured batch. Figures go to --out as key=value lines (also when a phase times out or fails).
//
// usage: java -cp <pgjdbc.jar> bench/chain3/Driver.java --label L --start-urls U1[,U2...] --client-token FILE
//          --jdbc-url URL --db-user U --db-password PW --poll-sql SQL --out FILE
//          [--register-url URL --admin-token FILE --register-body JSON] [--runs 6000] [--warmup 500]
//          [--starters 4] [--timeout-s 600] [--pids P1,P2] [--pg-pid P] [--clk-tck 100] [--phase-file F]
//          [--poll-ms 100] [--warmup-min-s 0] [--checkpoint true] [--items 0]
//   --runs 0: the warm-up only, no measured phase and no figures but warmup_s and warmup_runs
//   --poll-sql: SELECT <run id text>, <status>, <updated_at as epoch µs bigint> FROM ... WHERE <terminal>
//               AND <id> = ANY(CAST(? AS uuid[]))   (the ? is the text array of the open runs' ids)
//   --items N: each run's input also carries "items": [0, 1, ..., N-1] (bench/fanout.sh's forEach list)
//   --pids: the service JVMs (CPU and peak RSS); --pg-pid: the postmaster (CPU of it and its children)
//   --phase-file: handshake with PgProfile: "warm" when the measured phase is about to start, waits for "go",
//                 "done" when it has ended
//   wake-up mode (bench/wakeup.sh): --duration-s S --ready-url URL --pod-file F [--window-s 5] [--ready-timeout-s 120]
//               the driver gets ready first, creates F.wait, then waits for F ("<pid> <launch epoch ns>", the pod the
//               script launched), polls URL every 20 ms and, from its first 200, runs the closed loop for S seconds;
//               figures: ready_ms, ready_cpu_ms (the pod's utime+stime at that 200), runs/s and the pod's CPU in
//               windows of W s, first15_vs_steady, s_to_80pct (see wakeup())
// exit: 0 all runs SUCCEEDED in time, 1 a timeout or a run that did not succeed, 2 usage, 3 a start or the
//       registration answered non-2xx (or failed)
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Driver {
    static final Pattern RUN_ID = Pattern.compile("\"runId\"\\s*:\\s*\"([^\"]+)\"");

    final Map<String, String> o;
    final String label;
    final String[] startUrls;
    final String clientToken;
    final int starters;
    /** ",\"items\":[0,...,N-1]" appended to each run's input, or "" (--items 0, chain3). */
    final String itemsField;
    final long timeoutUs;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    // one nonce per driver invocation: idempotency keys stay unique across repeated runs on the same database
    final String nonce = Long.toString(System.currentTimeMillis(), 36);
    final Map<String, String> figures = new LinkedHashMap<>();

    // terminal runs seen by the poller: run id -> {updated_at µs, 1 if SUCCEEDED else 0}
    final ConcurrentHashMap<String, long[]> terminal = new ConcurrentHashMap<>();
    volatile boolean polling = true;
    /** The phase being measured, for the poll's bound on created_at. */
    volatile Phase current;

    Driver(Map<String, String> o) throws IOException {
        this.o = o;
        label = o.getOrDefault("label", "target");
        startUrls = o.get("start-urls").split(",");
        clientToken = Files.readString(Path.of(o.get("client-token"))).trim();
        starters = Integer.parseInt(o.getOrDefault("starters", "4"));
        int items = Integer.parseInt(o.getOrDefault("items", "0"));
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < items; i++) {
            list.append(i == 0 ? ",\"items\":[" : ",").append(i);
        }
        itemsField = items == 0 ? "" : list.append(']').toString();
        timeoutUs = Long.parseLong(o.getOrDefault("timeout-s", "600")) * 1_000_000L;
    }

    static OffsetDateTime at(long us) {
        return OffsetDateTime.ofInstant(Instant.ofEpochSecond(us / 1_000_000, (us % 1_000_000) * 1000), ZoneOffset.UTC);
    }

    static long monoUs() {
        return System.nanoTime() / 1000;
    }

    static long nowUs() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }

    static void log(String line) {
        System.err.println(line);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        for (String required : List.of("start-urls", "client-token", "jdbc-url", "db-user", "db-password",
                "poll-sql", "out")) {
            if (!o.containsKey(required)) {
                System.err.println("missing --" + required);
                System.exit(2);
            }
        }
        Driver d = new Driver(o);
        int rc;
        try {
            rc = d.run();
        } catch (StartFailed e) {
            log("phase=" + d.label + " error=" + e.getMessage());
            rc = 3;
        } finally {
            d.polling = false;
            d.writeFigures();
        }
        System.exit(rc);
    }

    static final class StartFailed extends Exception {
        StartFailed(String message) {
            super(message);
        }
    }

    // ---- the phases ---------------------------------------------------------------------------------------------

    int run() throws Exception {
        Thread poller = new Thread(this::pollLoop, "poller");
        poller.setDaemon(true);
        poller.start();
        if (o.containsKey("register-url")) {
            register();
        }
        if (o.containsKey("duration-s")) {
            return wakeup();
        }
        int warmup = Integer.parseInt(o.getOrDefault("warmup", "500"));
        int runs = Integer.parseInt(o.getOrDefault("runs", "6000"));
        figures.put("runs", Integer.toString(runs));
        long warmupMinUs = Long.parseLong(o.getOrDefault("warmup-min-s", "0")) * 1_000_000L;
        if (warmup > 0) {
            long t0 = monoUs();
            int batches = 0;
            do { // batches of --warmup runs until both the count and the minimum time are reached
                Phase w = new Phase("warmup" + (batches == 0 ? "" : "-" + batches), warmup, 1_000_000 * (batches + 1));
                w.run();
                if (w.completed() < warmup || w.failed > 0) {
                    log("phase=" + label + "-warmup error=only " + w.completed() + " of " + warmup
                            + " runs completed (" + w.failed + " not SUCCEEDED) within the timeout");
                    return 1;
                }
                batches++;
            } while (monoUs() - t0 < warmupMinUs);
            figures.put("warmup_s", fmt1((monoUs() - t0) / 1e6));
            figures.put("warmup_runs", Integer.toString(batches * warmup));
        }
        if (runs == 0) { // a warm-up only: the measured rounds come from later invocations
            return 0;
        }
        if (Boolean.parseBoolean(o.getOrDefault("checkpoint", "true"))) {
            checkpoint();
        }
        handshake("warm", "go");
        Cpu before = Cpu.read(o);
        Phase m = new Phase("measure", runs, 0);
        try {
            m.run();
        } finally {
            Cpu after = Cpu.read(o);
            handshake("done", null);
            m.report(before, after);
        }
        return m.timedOut || m.failed > 0 || m.completed() < runs ? 1 : 0;
    }

    /**
     * Wake-up mode: the load starts at the pod's first ready 200 and lasts --duration-s. Completions are counted by
     * their updated_at (the database's clock, the same host's) from that 200 on. steady is the mean rate over the
     * last 30 s; first15_vs_steady the rate over the first 15 s over it; s_to_80pct the first second t at which the
     * rate over the trailing 5 s (over [0, t] before t = 5) reaches 80 % of steady.
     */
    int wakeup() throws Exception {
        long durationS = Long.parseLong(o.get("duration-s"));
        int windowS = Integer.parseInt(o.getOrDefault("window-s", "5"));
        long readyTimeoutUs = Long.parseLong(o.getOrDefault("ready-timeout-s", "120")) * 1_000_000L;
        double tck = Double.parseDouble(o.getOrDefault("clk-tck", "100"));
        Path podFile = Path.of(o.get("pod-file"));
        URI readyUrl = URI.create(o.get("ready-url"));
        // the HTTP client and the poller's connection are made before the pod starts: none of it falls on the pod
        try {
            http.send(HttpRequest.newBuilder(readyUrl).timeout(Duration.ofSeconds(1)).GET().build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            // nothing listens yet: expected
        }
        try (Connection c = connect()) {
            c.isValid(5);
        }
        Files.writeString(Path.of(podFile + ".wait"), "waiting");
        long waitFrom = monoUs();
        while (!Files.exists(podFile)) {
            if (monoUs() - waitFrom > readyTimeoutUs) {
                log("phase=" + label + " error=no pod file " + podFile);
                return 1;
            }
            Thread.sleep(5);
        }
        String[] pod = Files.readString(podFile).trim().split("\\s+");
        String pid = pod[0];
        long launchUs = Long.parseLong(pod[1]) / 1000;
        HttpRequest probe = HttpRequest.newBuilder(readyUrl).timeout(Duration.ofSeconds(1)).GET().build();
        long readyUs;
        long[] atReady;
        long jitAtReady;
        java.util.Map<String, Long> byThreadAtReady = java.util.Map.of();
        while (true) {
            int code = 0;
            try {
                code = http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (IOException e) {
                // not listening yet
            }
            if (code == 200) {
                atReady = Cpu.stat(pid);
                jitAtReady = Cpu.compilerTicks(pid);
                byThreadAtReady = Cpu.ticksByThreadGroup(pid);
                readyUs = nowUs();
                break;
            }
            if (Cpu.stat(pid) == null) {
                log("phase=" + label + " error=the pod (pid " + pid + ") exited before it was ready");
                return 1;
            }
            if (nowUs() - launchUs > readyTimeoutUs) {
                log("phase=" + label + " error=the pod was not ready in time");
                return 1;
            }
            Thread.sleep(20);
        }
        if (atReady == null) {
            log("phase=" + label + " error=the pod (pid " + pid + ") vanished at ready");
            return 1;
        }
        long readyTicks = atReady[0] + atReady[1];
        figures.put("ready_ms", Long.toString((readyUs - launchUs) / 1000));
        figures.put("ready_cpu_ms", Long.toString(Math.round(readyTicks * 1000 / tck)));
        figures.put("ready_jit_cpu_ms", Long.toString(Math.round(jitAtReady * 1000 / tck)));
        figures.put("ready_cpu_ms_by_thread", Cpu.topGroups(byThreadAtReady, tck, 10));
        log("phase=" + label + " ready_ms=" + figures.get("ready_ms") + " ready_cpu_ms=" + figures.get("ready_cpu_ms"));

        // the pod's CPU (all threads, and its compiler threads) sampled at each window's end
        int windows = (int) (durationS / windowS);
        long[] cpuAt = new long[windows + 1], jitAt = new long[windows + 1];
        cpuAt[0] = readyTicks;
        jitAt[0] = jitAtReady;
        long readyMono = monoUs();
        Thread sampler = new Thread(() -> {
            for (int w = 1; w <= windows; w++) {
                long due = readyMono + w * windowS * 1_000_000L;
                try {
                    Thread.sleep(Math.max(0, (due - monoUs()) / 1000));
                } catch (InterruptedException e) {
                    return;
                }
                long[] s = Cpu.stat(pid);
                cpuAt[w] = s == null ? -1 : s[0] + s[1];
                jitAt[w] = Cpu.compilerTicks(pid);
            }
        }, "sampler");
        sampler.setDaemon(true);
        sampler.start();

        Phase m = new Phase("wakeup", 2_000_000, 0);
        m.deadlineMonoUs = readyMono + durationS * 1_000_000L;
        m.run();
        sampler.join(windowS * 1000L + 5000);
        if (m.error != null) {
            throw new StartFailed(m.error);
        }
        // completions per second after ready
        int[] perSecond = new int[(int) durationS];
        int done = 0;
        for (int k = 0; k < m.n; k++) {
            long[] c = m.runIds[k] == null ? null : terminal.get(m.runIds[k]);
            if (c == null || c[1] == 0) {
                continue;
            }
            long s = Math.floorDiv(c[0] - readyUs, 1_000_000L);
            if (s >= 0 && s < durationS) {
                perSecond[(int) s]++;
                done++;
            }
        }
        StringBuilder rates = new StringBuilder(), cpu = new StringBuilder(), jit = new StringBuilder();
        for (int w = 0; w < windows; w++) {
            int sum = 0;
            for (int s = w * windowS; s < (w + 1) * windowS; s++) {
                sum += perSecond[s];
            }
            String sep = w == 0 ? "" : ",";
            rates.append(sep).append(fmt1(sum / (double) windowS));
            boolean known = cpuAt[w] >= 0 && cpuAt[w + 1] > 0;
            // % of one core over the window
            cpu.append(sep).append(known ? Long.toString(Math.round((cpuAt[w + 1] - cpuAt[w]) * 100 / tck / windowS)) : "NA");
            jit.append(sep).append(known ? Long.toString(Math.round((jitAt[w + 1] - jitAt[w]) * 100 / tck / windowS)) : "NA");
        }
        int steadyS = (int) Math.min(30, durationS);
        double steady = 0;
        for (int s = (int) durationS - steadyS; s < durationS; s++) {
            steady += perSecond[s];
        }
        steady /= steadyS;
        int firstS = (int) Math.min(15, durationS);
        double first = 0;
        for (int s = 0; s < firstS; s++) {
            first += perSecond[s];
        }
        first /= firstS;
        String to80 = "NA";
        for (int t = 1; t <= durationS; t++) {
            int from = Math.max(0, t - 5);
            double sum = 0;
            for (int s = from; s < t; s++) {
                sum += perSecond[s];
            }
            if (steady > 0 && sum / (t - from) >= 0.8 * steady) {
                to80 = Integer.toString(t);
                break;
            }
        }
        figures.put("completed", Integer.toString(done));
        figures.put("failed", Integer.toString(m.failed));
        figures.put("window_s", Integer.toString(windowS));
        figures.put("runs_per_s_windows", rates.toString());
        figures.put("cpu_pct_windows", cpu.toString());
        figures.put("jit_cpu_pct_windows", jit.toString());
        if (cpuAt[windows] > 0) {
            figures.put("cpu_s_after_ready", fmt1((cpuAt[windows] - readyTicks) / tck));
            figures.put("jit_cpu_s_after_ready", fmt1((jitAt[windows] - jitAtReady) / tck));
        }
        // the pod's CPU a run, first 15 s over last 30 s: the same question as the rates, less moved by a busy host
        int firstW = firstS / windowS, steadyW = steadyS / windowS;
        if (cpuAt[windows] > 0 && cpuAt[firstW] > 0 && cpuAt[windows - steadyW] > 0 && first > 0 && steady > 0) {
            double firstCpu = (cpuAt[firstW] - cpuAt[0]) * 1000 / tck / (first * firstS);
            double steadyCpu = (cpuAt[windows] - cpuAt[windows - steadyW]) * 1000 / tck / (steady * steadyS);
            figures.put("first15_cpu_ms_per_run", String.format(Locale.ROOT, "%.2f", firstCpu));
            figures.put("steady_cpu_ms_per_run", String.format(Locale.ROOT, "%.2f", steadyCpu));
        }
        figures.put("first15_runs_per_s", fmt1(first));
        figures.put("steady_runs_per_s", fmt1(steady));
        figures.put("first15_vs_steady", steady > 0 ? String.format(Locale.ROOT, "%.2f", first / steady) : "NA");
        figures.put("s_to_80pct", to80);
        return m.failed > 0 || m.timedOut ? 1 : 0;
    }

    /** PUT the workflow; an existing one (428: If-Match needed) is updated with its current ETag. */
    void register() throws Exception {
        String url = o.get("register-url");
        String admin = Files.readString(Path.of(o.get("admin-token"))).trim();
        String body = o.get("register-body");
        HttpResponse<String> r = http.send(put(url, admin, body, null), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 428 || r.statusCode() == 409) {
            HttpResponse<String> g = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + admin).GET().build(), HttpResponse.BodyHandlers.ofString());
            String etag = g.headers().firstValue("ETag").orElse(null);
            r = http.send(put(url, admin, body, etag), HttpResponse.BodyHandlers.ofString());
        }
        if (r.statusCode() != 201 && r.statusCode() != 200) {
            throw new StartFailed("PUT " + url + " answered " + r.statusCode() + ": " + r.body());
        }
        log("phase=" + label + "-register status=" + r.statusCode());
    }

    static HttpRequest put(String url, String token, String body, String ifMatch) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body));
        if (ifMatch != null) {
            b.header("If-Match", ifMatch);
        }
        return b.build();
    }

    /** One batch of runs: started by the closed loop, then waited for until all are terminal or the timeout. */
    final class Phase {
        final String name;
        final int n;
        final int firstInput;
        final long[] sentUs, answeredUs;
        final String[] runIds;
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger non201 = new AtomicInteger();
        /** Wake-up mode: no start after this (monotonic µs); the phase then waits for the runs it started. */
        volatile long deadlineMonoUs = Long.MAX_VALUE;
        volatile String error;
        volatile boolean timedOut;
        int failed;
        final List<String> failedIds = new ArrayList<>();

        Phase(String name, int n, int firstInput) {
            this.name = name;
            this.n = n;
            this.firstInput = firstInput;
            sentUs = new long[n];
            answeredUs = new long[n];
            runIds = new String[n];
        }

        String tag() {
            return label + "-" + name;
        }

        long wallStartUs, monoStartNs;

        /** The runs of this phase started (answered) and not yet seen terminal. */
        List<String> openIds() {
            List<String> open = new ArrayList<>();
            int started = Math.min(next.get(), n);
            for (int k = 0; k < started; k++) {
                String id = runIds[k];
                if (id != null && !terminal.containsKey(id)) {
                    open.add(id);
                }
            }
            return open;
        }

        void run() throws Exception {
            current = this;
            // timeouts and progress on the monotonic clock; figures on the wall clock (PostgreSQL's updated_at)
            wallStartUs = nowUs();
            monoStartNs = System.nanoTime();
            long t0 = monoUs();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < starters; t++) {
                Thread th = new Thread(this::startLoop, "starter-" + t);
                th.setDaemon(true);
                th.start();
                threads.add(th);
            }
            long lastLog = 0;
            boolean startsDone = false;
            while (true) {
                if (!startsDone && threads.stream().noneMatch(Thread::isAlive)) {
                    startsDone = true;
                    if (error != null) {
                        throw new StartFailed(error);
                    }
                    log("phase=" + tag() + " starts_done=" + startedCount() + " start_s=" + fmt1((monoUs() - t0) / 1e6));
                }
                int done = completed();
                long now = monoUs();
                if (startsDone && done == startedCount()) {
                    break;
                }
                if (now - t0 > timeoutUs) {
                    timedOut = true;
                    next.set(n); // stop starting more
                    break;
                }
                if (now - lastLog > 5_000_000L) {
                    lastLog = now;
                    log("phase=" + tag() + " started=" + Math.min(next.get(), n) + " done=" + done + "/" + n
                            + " elapsed_s=" + fmt1((now - t0) / 1e6));
                }
                Thread.sleep(50);
            }
            for (Thread th : threads) {
                th.join(35_000);
            }
            if (error != null) {
                throw new StartFailed(error);
            }
            if (timedOut) {
                sweep(this); // a run that finished since the last poll is not a slow run
            }
            failed = 0;
            for (int k = 0; k < n; k++) {
                long[] c = runIds[k] == null ? null : terminal.get(runIds[k]);
                if (c != null && c[1] == 0) {
                    failed++;
                    if (failedIds.size() < 10) {
                        failedIds.add(runIds[k]);
                    }
                }
            }
            log("phase=" + tag() + " done=" + completed() + "/" + n + " failed=" + failed
                    + (timedOut ? " timed_out=true" : "") + " elapsed_s=" + fmt1((monoUs() - t0) / 1e6)
                    + (failedIds.isEmpty() ? "" : " failed_ids=" + String.join(",", failedIds)));
        }

        /** Runs whose start was answered (all n, unless a deadline or an error stopped the starters). */
        int startedCount() {
            int c = 0;
            for (int k = 0, end = Math.min(next.get(), n); k < end; k++) {
                if (runIds[k] != null) {
                    c++;
                }
            }
            return c;
        }

        int completed() {
            int c = 0;
            for (int k = 0, end = Math.min(next.get(), n); k < end; k++) {
                String id = runIds[k];
                if (id != null && terminal.containsKey(id)) {
                    c++;
                }
            }
            return c;
        }

        void startLoop() {
            try {
                int k;
                while (monoUs() < deadlineMonoUs && (k = next.getAndIncrement()) < n && error == null) {
                    String url = startUrls[k % startUrls.length]; // round robin over the pods
                    String body = "{\"input\":{\"i\":" + (firstInput + k) + itemsField + "},\"idempotencyKey\":\"chain3-" + nonce
                            + "-" + name + "-" + k + "\"}";
                    HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                            .header("Authorization", "Bearer " + clientToken)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body)).build();
                    long sent = nowUs();
                    HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
                    long answered = nowUs();
                    if (r.statusCode() / 100 != 2) {
                        error = "POST " + url + " answered " + r.statusCode() + ": " + r.body();
                        return;
                    }
                    if (r.statusCode() != 201) {
                        non201.incrementAndGet();
                    }
                    Matcher m = RUN_ID.matcher(r.body());
                    if (!m.find()) {
                        error = "POST " + url + " answered " + r.statusCode() + " without a runId: " + r.body();
                        return;
                    }
                    sentUs[k] = sent;
                    answeredUs[k] = answered;
                    runIds[k] = m.group(1);
                }
            } catch (Exception e) {
                error = "start failed: " + e;
            }
        }

        /** Figures of the measured phase (over the runs that completed, should the phase have timed out). */
        void report(Cpu before, Cpu after) {
            long firstSent = Long.MAX_VALUE, lastAnswered = 0, lastDone = 0;
            int started = 0;
            List<Long> lat = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                if (runIds[k] == null) {
                    continue;
                }
                started++;
                firstSent = Math.min(firstSent, sentUs[k]);
                lastAnswered = Math.max(lastAnswered, answeredUs[k]);
                long[] c = terminal.get(runIds[k]);
                if (c != null) {
                    lastDone = Math.max(lastDone, c[0]);
                    lat.add(c[0] - sentUs[k]);
                }
            }
            int done = lat.size();
            // A wall-clock step during the phase (NTP, a paused VM) makes every figure above meaningless: say so.
            long skewMs = ((nowUs() - wallStartUs) - (System.nanoTime() - monoStartNs) / 1000) / 1000;
            if (Math.abs(skewMs) > 500) {
                figures.put("clock_jump_ms", Long.toString(skewMs));
                log("phase=" + tag() + " WARNING the wall clock moved " + skewMs + " ms against the monotonic clock"
                        + " during the phase: the figures are not trustworthy");
            }
            figures.put("started", Integer.toString(started));
            figures.put("completed", Integer.toString(done));
            figures.put("failed", Integer.toString(failed));
            figures.put("timed_out", Boolean.toString(timedOut));
            if (non201.get() > 0) {
                figures.put("non201_starts", Integer.toString(non201.get()));
            }
            if (started > 0 && lastAnswered > firstSent) {
                figures.put("start_per_s", fmt1(started / ((lastAnswered - firstSent) / 1e6)));
            }
            if (done > 0 && lastDone > firstSent) {
                double seconds = (lastDone - firstSent) / 1e6;
                figures.put("runs_per_s", fmt1(done / seconds));
                figures.put("measured_s", fmt1(seconds));
                long[] sorted = lat.stream().mapToLong(Long::longValue).sorted().toArray();
                figures.put("p50_ms", fmt1(percentile(sorted, 0.50) / 1000.0));
                figures.put("p99_ms", fmt1(percentile(sorted, 0.99) / 1000.0));
                figures.put("max_ms", fmt1(sorted[sorted.length - 1] / 1000.0));
            }
            double tck = Double.parseDouble(o.getOrDefault("clk-tck", "100"));
            double jvm = (after.jvm - before.jvm) / tck, pg = (after.pg - before.pg) / tck;
            figures.put("jvm_cpu_s", before.jvm >= 0 && after.jvm >= 0 ? fmt1(jvm) : "NA");
            figures.put("pg_cpu_s", before.pg >= 0 && after.pg >= 0 ? fmt1(pg) : "NA");
            figures.put("jit_cpu_s", before.jit >= 0 && after.jit >= 0 ? fmt1(Math.max(0, after.jit - before.jit) / tck) : "NA");
            figures.put("driver_cpu_s", fmt1((after.self - before.self) / tck));
            figures.put("host_busy_cpu_s", fmt1((after.host - before.host) / tck));
            figures.put("host_steal_cpu_s", fmt1((after.steal - before.steal) / tck));
            StringBuilder threads = new StringBuilder();
            after.threads.entrySet().stream()
                    .map(e -> Map.entry(e.getKey(), e.getValue() - before.threads.getOrDefault(e.getKey(), 0L)))
                    .filter(e -> e.getValue() > 0).sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(8)
                    .forEach(e -> threads.append(threads.length() == 0 ? "" : ",").append(e.getKey().replace(' ', '_'))
                            .append(':').append(fmt1(e.getValue() / tck)));
            log("phase=" + tag() + " driver_cpu_s_by_thread=" + threads);
            if (done > 0 && before.jvm >= 0) {
                double ms = (jvm + (before.pg >= 0 ? pg : 0)) * 1000 / done;
                figures.put("cpu_ms_per_run", String.format(Locale.ROOT, "%.2f", ms));
            }
            figures.put("rss_mb", after.hwmKb > 0 ? Long.toString(Math.round(after.hwmKb / 1024.0)) : "NA");
        }
    }

    static long percentile(long[] sorted, double q) { // nearest rank
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static String fmt1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    // ---- completion from the database ---------------------------------------------------------------------------

    Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", o.get("db-user"));
        p.setProperty("password", o.get("db-password"));
        p.setProperty("ApplicationName", "chain3-driver"); // PgProfile leaves the driver's own sessions out
        p.setProperty("connectTimeout", "10");
        p.setProperty("socketTimeout", "60");
        Connection c = DriverManager.getConnection(o.get("jdbc-url"), p);
        c.setAutoCommit(true);
        return c;
    }

    /**
     * Every poll-ms: which of the runs started and not yet seen terminal are terminal now, looked up by primary key.
     * A poll so reads only the open runs (a few dozen in steady state), whatever the table holds, and no commit can
     * slip past it: a run stays in the open set until the poll has seen it terminal.
     */
    void pollLoop() {
        long pollMs = Long.parseLong(o.getOrDefault("poll-ms", "100"));
        Connection c = null;
        PreparedStatement ps = null;
        while (polling) {
            long t0 = System.nanoTime();
            try {
                if (c == null) {
                    c = connect();
                    ps = c.prepareStatement(o.get("poll-sql"));
                }
                Phase phase = current;
                if (phase != null) {
                    poll(c, ps, phase.openIds());
                }
            } catch (SQLException e) {
                log("phase=" + label + " poller_error=" + e.getMessage());
                try {
                    if (c != null) {
                        c.close();
                    }
                } catch (SQLException ignored) {
                    // reconnecting anyway
                }
                c = null;
            }
            long sleep = pollMs - (System.nanoTime() - t0) / 1_000_000;
            try {
                Thread.sleep(Math.max(1, sleep));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Records which of {@code ids} are terminal now (poll-sql's one parameter is the id array). */
    void poll(Connection c, PreparedStatement ps, List<String> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        ps.setArray(1, c.createArrayOf("text", ids.toArray()));
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                terminal.putIfAbsent(rs.getString(1),
                        new long[] {rs.getLong(3), "SUCCEEDED".equals(rs.getString(2)) ? 1 : 0});
            }
        }
    }

    /** One last look at the runs still open after a timeout, so that one finished meanwhile is counted. */
    void sweep(Phase phase) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(o.get("poll-sql"))) {
            poll(c, ps, phase.openIds());
        } catch (SQLException e) {
            log("phase=" + label + " sweep_error=" + e.getMessage());
        }
    }

    /** So neither side pays for the other's (or the warm-up's) dirty pages in a checkpoint; needs superuser. */
    void checkpoint() {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CHECKPOINT");
        } catch (SQLException e) {
            log("phase=" + label + " checkpoint_skipped=" + e.getMessage());
        }
    }

    /** Writes state to the phase file and, when asked, waits (bounded) for PgProfile's answer. */
    void handshake(String state, String await) throws Exception {
        String file = o.get("phase-file");
        if (file == null) {
            return;
        }
        Path f = Path.of(file), tmp = Path.of(file + ".tmp");
        Files.writeString(tmp, state);
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        if (await == null) {
            return;
        }
        long until = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < until) {
            if (Files.exists(f) && Files.readString(f).trim().equals(await)) {
                return;
            }
            Thread.sleep(10);
        }
        log("phase=" + label + " profiler_not_ready (no '" + await + "' in " + file + " within 30 s): measuring anyway");
    }

    // ---- CPU and memory from /proc --------------------------------------------------------------------------------

    /** Clock ticks of the service JVMs, of PostgreSQL, of this driver and of the whole host; peak RSS of the JVMs. */
    static final class Cpu {
        long jvm = -1, pg = -1, jit = -1, self, host, steal, hwmKb;
        Map<String, Long> threads = Map.of();

        /** This driver's CPU by thread kind (name without its number), to see what the load generator costs. */
        static Map<String, Long> threadTicks() {
            Map<String, Long> m = new HashMap<>();
            String[] tids = new java.io.File("/proc/self/task").list();
            for (String tid : tids == null ? new String[0] : tids) {
                try {
                    String st = Files.readString(Path.of("/proc/self/task", tid, "stat"));
                    String name = st.substring(st.indexOf('(') + 1, st.lastIndexOf(')')).replaceAll("[-#]?[0-9]+$", "");
                    String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
                    m.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended
                }
            }
            return m;
        }

        static Cpu read(Map<String, String> o) {
            Cpu c = new Cpu();
            String pids = o.getOrDefault("pids", "");
            if (!pids.isBlank()) {
                long sum = 0;
                boolean all = true;
                for (String p : pids.split(",")) {
                    long[] s = stat(p.trim());
                    if (s == null) {
                        all = false;
                        continue;
                    }
                    sum += s[0] + s[1];
                    c.hwmKb = Math.max(c.hwmKb, hwmKb(p.trim()));
                    c.jit = Math.max(c.jit, 0) + compilerTicks(p.trim());
                }
                c.jvm = all ? sum : -1;
            }
            String pm = o.get("pg-pid");
            if (pm != null && !pm.isBlank()) {
                c.pg = postgresTicks(pm.trim());
            }
            long[] me = stat("self");
            c.self = me == null ? 0 : me[0] + me[1];
            c.threads = threadTicks();
            long[] h = host();
            c.host = h[0];
            c.steal = h[1];
            return c;
        }

        /** {utime, stime, cutime, cstime, ppid} of /proc/<pid>/stat (fields 14-17 and 4), or null. */
        static long[] stat(String pid) {
            try {
                String s = Files.readString(Path.of("/proc", pid, "stat"));
                String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
                // f[0] is field 3 (state): field n is f[n - 3]
                return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]),
                    Long.parseLong(f[14]), Long.parseLong(f[1])};
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        /**
         * The postmaster and its children (backends, walwriter, checkpointer, autovacuum...). cutime/cstime of
         * the postmaster hold the CPU of children it already reaped, so a backend that exits is not lost.
         */
        static long postgresTicks(String postmaster) {
            long[] pm = stat(postmaster);
            if (pm == null) {
                return -1;
            }
            long sum = pm[0] + pm[1] + pm[2] + pm[3];
            long ppid = Long.parseLong(postmaster);
            String[] entries = new java.io.File("/proc").list();
            for (String e : entries == null ? new String[0] : entries) {
                if (!e.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                long[] s = stat(e);
                if (s != null && s[4] == ppid) {
                    sum += s[0] + s[1];
                }
            }
            return sum;
        }

        /**
         * Ticks of a JVM's threads grouped by name with digits dropped ("executor-thread-3" counts as
         * "executor-thread-"), so a start-up's CPU shows which part of the JVM spent it.
         */
        static java.util.Map<String, Long> ticksByThreadGroup(String pid) {
            java.util.Map<String, Long> groups = new java.util.HashMap<>();
            String[] tids = new java.io.File("/proc/" + pid + "/task").list();
            for (String tid : tids == null ? new String[0] : tids) {
                try {
                    String st = Files.readString(Path.of("/proc", pid, "task", tid, "stat"));
                    String name = st.substring(st.indexOf('(') + 1, st.lastIndexOf(')')).replaceAll("[0-9]+", "");
                    String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
                    groups.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended
                }
            }
            return groups;
        }

        /** The {@code top} groups as {@code name:ms,...} (spaces made underscores), largest first. */
        static String topGroups(java.util.Map<String, Long> groups, double tck, int top) {
            return groups.entrySet().stream().sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
                    .limit(top).map(e -> e.getKey().trim().replace(' ', '_') + ":" + Math.round(e.getValue() * 1000 / tck))
                    .collect(java.util.stream.Collectors.joining(","));
        }

        /**
         * CPU of the JIT compiler threads of a JVM ("C1 CompilerThre"/"C2 CompilerThre" in /proc): how far from its
         * steady state the measured phase still was. A thread the JVM retired meanwhile is not counted.
         */
        static long compilerTicks(String pid) {
            return ticksByThreadGroup(pid).entrySet().stream().filter(e -> e.getKey().contains("CompilerThre"))
                    .mapToLong(java.util.Map.Entry::getValue).sum();
        }

        static long hwmKb(String pid) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
                    if (line.startsWith("VmHWM:")) {
                        return Long.parseLong(line.replaceAll("[^0-9]", ""));
                    }
                }
            } catch (IOException | RuntimeException e) {
                // gone: no figure
            }
            return 0;
        }

        /**
         * {busy, steal} ticks of all CPUs from /proc/stat (user nice system idle iowait irq softirq steal): busy is
         * what ran here (everything on the host, the benchmark's own processes and any neighbour), steal what the
         * hypervisor gave to other guests (a noisy host shows here).
         */
        static long[] host() {
            try {
                String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
                long[] v = Arrays.stream(f, 1, Math.min(f.length, 9)).mapToLong(Long::parseLong).toArray();
                return new long[] {v[0] + v[1] + v[2] + v[5] + v[6], v.length > 7 ? v[7] : 0};
            } catch (IOException | RuntimeException e) {
                return new long[] {0, 0};
            }
        }
    }

    void writeFigures() {
        StringBuilder sb = new StringBuilder();
        figures.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        try {
            Files.writeString(Path.of(o.get("out")), sb.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            log("cannot write " + o.get("out") + ": " + e);
        }
    }
}
