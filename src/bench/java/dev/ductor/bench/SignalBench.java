package dev.ductor.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.run.command.RunOperations;
import dev.ductor.run.commit.RunStarter;
import dev.ductor.run.commit.StartRequest;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.workflow.WorkflowService;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.ductor.bench.BenchFigures.fixed;
import static dev.ductor.bench.BenchFigures.intProperty;
import static dev.ductor.bench.BenchFigures.percentile;

/**
 * {@code bench/run.sh signals}: how many signals per second ONE hot run absorbs with the real coordinator
 * running (loops, batches, retries, in-process workers: {@link SignalBenchProfile}), and the latency from a
 * signal's acceptance to the step it unblocks being dispatched.
 *
 * <p>The workflow has {@code pairs} signal nodes {@code s<i>} (waiting for signal {@code sig-<i>}), each
 * followed by an {@code ext:} task node {@code t<i>}: signal {@code sig-<i>} makes the next tick dispatch
 * {@code t<i>}, i.e. insert its TASK row in the queue. Nothing runs {@code ext:} tasks here, so the run
 * stays RUNNING until the round cancels it. One round: start one run, {@code senders} threads send the
 * {@code pairs} signals as fast as they can (closed loop), wait until every {@code t<i>} is dispatched,
 * read the figures, cancel the run (untimed). Signals go through HTTP ({@code POST /api/v1/runs/{id}/signals}
 * with a client dev token, java.net.http) in the main rounds, and straight through
 * {@link RunOperations#signal} in the service rounds, which leave the HTTP layer out and are interleaved with the
 * measured HTTP rounds.
 *
 * <p>Acceptance time: when the sender has the 202 (or the service call has returned), i.e. after the
 * signal's transaction committed. Dispatch time: when the TASK row of {@code t<i>} became visible, i.e. when
 * the tick that wrote it committed, observed through a LISTEN/NOTIFY trigger this benchmark puts on the
 * queue table for its own handler only (a notification is delivered at commit). The task row's
 * {@code created_at} (the dispatching tick's clock, taken when the tick began) is read too.
 *
 * <p>Named {@code *Bench} and enabled only with {@code -Dbench.scenario=signals}: it runs on demand only.
 */
@QuarkusTest
@TestProfile(SignalBenchProfile.class)
@EnabledIfSystemProperty(named = "bench.scenario", matches = "signals")
@Tag("bench")
class SignalBench {

    private static final String TENANT = "ductor-bench";
    private static final String TIER = "standard";
    private static final String HANDLER = "ext:bench-signal";
    private static final String CHANNEL = "ductor_bench_dispatch";

    @Inject
    WorkflowService workflows;

    @Inject
    RunStarter starter;

    @Inject
    RunOperations operations;

    @Inject
    DevTokenIssuer issuer;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    ObjectMapper mapper;

    @Inject
    MeterRegistry registry;

    private final int pairs = intProperty("bench.signals.pairs", 250);
    private final int senders = intProperty("bench.signals.senders", 8);
    /**
     * 60 rounds (15,000 signals over HTTP, about two minutes here): the figure is the steady state, as chain3's is after
     * its 90 s warm-up. With 4 the HTTP rounds still ran partly interpreted (7 ms of JVM CPU a signal against 1.4 on a
     * warm JVM); with 12 the C2 compiler still took 0.7 ms a signal and compiled 11,000 more methods in the next 40.
     */
    private final int warmupRounds = intProperty("bench.signals.warmup-rounds", 60);
    private final int rounds = intProperty("bench.signals.rounds", 8);
    private final int serviceRounds = intProperty("bench.signals.service-rounds", 4);
    /** Counts the database's transactions per signal (pg_stat_database, flushed by backends at most every second). */
    private final boolean countTransactions = Boolean.parseBoolean(System.getProperty("bench.signals.count-xacts", "true"));
    private final Path out = Path.of(System.getProperty("bench.out", "target/bench/signals.properties"));
    private static final long STATS_SETTLE_MS = 1200;
    /** USER_HZ of /proc/<pid>/stat: 100 on every Linux this runs on. */
    private static final long CLOCK_TICKS = 100;
    /** Transactions per second of the idle loops (polling), measured before the rounds. */
    private double idleXactsPerSecond;

    /** Per run: node id of each dispatched {@code t<i>} and when its TASK row's commit was seen. */
    private final Map<UUID, Map<String, Instant>> visible = new ConcurrentHashMap<>();
    private volatile boolean listening = true;
    private volatile Throwable listenerFailure;

    private interface Sender {
        /** Sends signal {@code sig-<i>} to the run; returns the HTTP status (202 for a new signal). */
        int send(UUID runId, int i) throws Exception;

        /** True when the sender threads only wait for a client (HTTP); false when they run Ductor's code themselves. */
        default boolean remote() {
            return false;
        }
    }

    @Test
    void signals() throws Exception {
        BenchFigures figures = new BenchFigures(out);
        Files.deleteIfExists(out);
        ExecutorService pool = Executors.newFixedThreadPool(senders, clientThreads("bench-sender-"));
        ExecutorService httpExecutor = Executors.newFixedThreadPool(2, clientThreads("bench-http-"));
        Connection listenConnection = null;
        Thread listener = null;
        try {
            figures.put("cores", Runtime.getRuntime().availableProcessors());
            figures.put("db", ConfigProvider.getConfig().getValue("quarkus.datasource.jdbc.url", String.class).replaceAll("\\?.*", ""));
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT current_setting('server_version'), current_setting('fsync'),"
                         + " current_setting('synchronous_commit')")) {
                rs.next();
                figures.put("postgres", rs.getString(1).replaceAll("\\s.*", ""));
                figures.put("postgres_fsync", rs.getString(2));
                figures.put("postgres_synchronous_commit", rs.getString(3));
            }
            var config = ConfigProvider.getConfig();
            figures.put("coordinator_threads", config.getOptionalValue("ductor.coordinator.threads", String.class).orElse("2"));
            figures.put("coordinator_batch_size", config.getOptionalValue("ductor.coordinator.batch-size", String.class).orElse("32"));
            figures.put("worker_threads", config.getOptionalValue("ductor.worker.threads", String.class).orElse("8"));
            figures.put("signals_per_run", pairs);
            figures.put("senders", senders);
            figures.put("rounds", rounds);

            installTrigger();
            listenConnection = dataSource.getConnection();
            listener = listen(listenConnection);

            String workflow = define();
            String token = issuer.mint("client", TENANT);
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(httpExecutor)
                    .connectTimeout(Duration.ofSeconds(10)).build();
            String base = RestAssured.baseURI + ":" + RestAssured.port;
            Sender viaHttp = new Sender() {
                @Override
                public int send(UUID runId, int i) throws Exception {
                    return http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/runs/" + runId + "/signals"))
                            .header("Authorization", "Bearer " + token)
                            .header("Content-Type", "application/json")
                            .timeout(Duration.ofSeconds(60))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"sig-" + i + "\",\"payload\":{\"i\":" + i
                                    + "},\"idempotencyKey\":\"bench-" + i + "\"}"))
                            .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
                }

                @Override
                public boolean remote() {
                    return true;
                }
            };
            Sender viaService = (runId, i) -> operations.signal(TENANT, runId, "sig-" + i, mapper.createObjectNode().put("i", i),
                    "bench-" + i) ? 202 : 200;

            for (int round = 0; round < warmupRounds; round++) {
                round(workflow, viaHttp, pool);
            }
            if (countTransactions) {
                Thread.sleep(STATS_SETTLE_MS);
                long before = xacts();
                long started = System.nanoTime();
                Thread.sleep(2_000);
                Thread.sleep(STATS_SETTLE_MS);
                idleXactsPerSecond = (xacts() - before) / ((System.nanoTime() - started) / 1e9);
                figures.put("idle_db_xact_per_s", fixed(idleXactsPerSecond, 1));
            }
            Totals httpTotals = new Totals();
            Totals serviceTotals = new Totals();
            List<String> perRound = new ArrayList<>();
            List<String> commitsPerRound = new ArrayList<>();
            // The service rounds are spread among the HTTP rounds, not run after them: the JIT compiler is still busy
            // after the warm-up (half a core here), and a reference measured later, on a warmer JVM, made HTTP look
            // costlier than it is.
            int serviceDone = 0;
            for (int round = 0; round < rounds; round++) {
                Round result = round(workflow, viaHttp, pool);
                httpTotals.add(result);
                perRound.add(fixed(result.perSecond(), 0));
                commitsPerRound.add(Long.toString(result.commits));
                while (serviceDone < (long) serviceRounds * (round + 1) / rounds) {
                    serviceTotals.add(round(workflow, viaService, pool));
                    serviceDone++;
                }
            }
            while (serviceDone++ < serviceRounds) {
                serviceTotals.add(round(workflow, viaService, pool)); // rounds = 0
            }

            figures.put("http_rounds_signals_per_s", String.join(",", perRound));
            figures.put("http_commits_per_round", String.join(",", commitsPerRound));
            report(figures, "http", httpTotals);
            report(figures, "service", serviceTotals);
            figures.put("signals_per_s", fixed(httpTotals.perSecond(), 1));
            figures.put("p50_ms", fixed(percentile(httpTotals.latencies(), 0.50), 1));
            figures.put("p99_ms", fixed(percentile(httpTotals.latencies(), 0.99), 1));
            if (listenerFailure != null) {
                figures.put("listener_failure", listenerFailure.toString().replaceAll("\\s+", "_"));
            }
        } finally {
            pool.shutdownNow();
            httpExecutor.shutdownNow();
            listening = false;
            if (listener != null) {
                listener.join(5_000);
            }
            if (listenConnection != null) {
                listenConnection.close();
            }
            dropTrigger();
            figures.write();
            if (System.getenv("QUARKUS_DATASOURCE_JDBC_URL") != null) {
                removeBenchData(); // an external database keeps nothing of ours; the embedded one is thrown away
            }
        }
    }

    private void report(BenchFigures figures, String prefix, Totals totals) {
        figures.put(prefix + "_signals", totals.accepted);
        figures.put(prefix + "_rejected", totals.rejected);
        figures.put(prefix + "_signals_per_s", fixed(totals.perSecond(), 1));
        figures.put(prefix + "_p50_ms", fixed(percentile(totals.latencies(), 0.50), 1));
        figures.put(prefix + "_p99_ms", fixed(percentile(totals.latencies(), 0.99), 1));
        figures.put(prefix + "_max_ms", fixed(percentile(totals.latencies(), 1.0), 1));
        figures.put(prefix + "_tick_start_p50_ms", fixed(percentile(totals.tickStartLatencies(), 0.50), 1));
        figures.put(prefix + "_tick_start_p99_ms", fixed(percentile(totals.tickStartLatencies(), 0.99), 1));
        figures.put(prefix + "_dispatching_tick_p50_ms", fixed(percentile(totals.tickToVisible(), 0.50), 1));
        figures.put(prefix + "_dispatching_tick_p99_ms", fixed(percentile(totals.tickToVisible(), 0.99), 1));
        figures.put(prefix + "_accept_p50_ms", fixed(percentile(totals.acceptLatencies(), 0.50), 1));
        figures.put(prefix + "_accept_p99_ms", fixed(percentile(totals.acceptLatencies(), 0.99), 1));
        figures.put(prefix + "_accepted_per_s", fixed(totals.acceptedPerSecond(), 1));
        figures.put(prefix + "_dispatched_before_202", totals.negative);
        figures.put(prefix + "_commits", totals.commits);
        figures.put(prefix + "_signals_per_commit", fixed(totals.commits == 0 ? 0 : (double) totals.accepted / totals.commits, 1));
        figures.put(prefix + "_tick_attempts", fixed(totals.tickAttempts, 0));
        figures.put(prefix + "_tick_conflicts", fixed(totals.conflicts, 0));
        figures.put(prefix + "_tick_noops", fixed(totals.noops, 0));
        figures.put(prefix + "_tick_errors", fixed(totals.errors, 0));
        figures.put(prefix + "_requeues", fixed(totals.requeues, 0));
        figures.put(prefix + "_tick_mean_ms", fixed(totals.tickAttempts == 0 ? 0 : totals.tickSeconds * 1000 / totals.tickAttempts, 1));
        figures.put(prefix + "_seconds", fixed(totals.seconds, 2));
        if (countTransactions) {
            figures.put(prefix + "_db_xact_per_signal", fixed(totals.accepted == 0 ? 0 : totals.netXacts / totals.accepted, 1));
        }
        figures.put(prefix + "_jvm_cpu_ms_per_signal", fixed(totals.accepted == 0 ? 0 : totals.cpuNanos / 1e6 / totals.accepted, 2));
        if (totals.clientCpuNanos > 0) {
            figures.put(prefix + "_client_cpu_ms_per_signal", fixed(totals.accepted == 0 ? 0 : totals.clientCpuNanos / 1e6 / totals.accepted, 2));
        }
        if (!totals.cpuByThread.isEmpty()) {
            figures.put(prefix + "_cpu_ms_per_signal_by_thread", ThreadCpu.perSignal(totals.cpuByThread, totals.accepted));
        }
        if (totals.dbCpuMillis >= 0 && totals.accepted > 0) {
            // Ductor's share only: the JVM's CPU less the benchmark's own senders and HTTP client, plus the database's.
            double jvm = (totals.cpuNanos - totals.clientCpuNanos) / 1e6 / totals.accepted;
            double db = (double) totals.dbCpuMillis / totals.accepted;
            figures.put(prefix + "_db_cpu_ms_per_signal", fixed(db, 2));
            figures.put(prefix + "_cpu_bound_signals_per_s", fixed(Runtime.getRuntime().availableProcessors() * 1000 / (jvm + db), 0));
        } else {
            figures.put(prefix + "_db_cpu_ms_per_signal", "NA");
            figures.put(prefix + "_cpu_bound_signals_per_s", "NA");
        }
        figures.put(prefix + "_load1", fixed(totals.rounds == 0 ? 0 : totals.loadSum / totals.rounds, 2));
        figures.put("check_" + prefix, totals.problems.isEmpty() ? "ok" : "MISMATCH(" + String.join(";", totals.problems) + ")");
    }

    // ------------------------------------------------------------------------------------------------ round

    private Round round(String workflow, Sender sender, ExecutorService pool) throws Exception {
        JsonNode input = mapper.readTree("{\"bench\":\"signals\"}");
        UUID runId = starter.start(TENANT, workflow, new StartRequest(input, null, TIER)).run().runId();
        Map<String, Instant> seen = new ConcurrentHashMap<>();
        visible.put(runId, seen);
        long versionBefore = longQuery("SELECT db_record_version FROM eec_workflow_run WHERE run_id = ?", runId);

        Instant[] sent = new Instant[pairs];
        Instant[] accepted = new Instant[pairs];
        int[] status = new int[pairs];
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Object>> futures = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            int first = s;
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = first; i < pairs; i += senders) {
                    sent[i] = Instant.now();
                    try {
                        status[i] = sender.send(runId, i);
                    } catch (Exception e) {
                        status[i] = -1;
                    }
                    accepted[i] = Instant.now();
                }
                return null;
            }));
        }
        long xactsBefore = 0;
        long windowStarted = System.nanoTime();
        if (countTransactions) {
            Thread.sleep(STATS_SETTLE_MS);
            xactsBefore = xacts();
            windowStarted = System.nanoTime();
        }
        Meters before = Meters.read(registry);
        Round round = new Round();
        round.load = BenchFigures.load1();
        long cpu = BenchFigures.processCpuNanos();
        Map<String, Long> threadCpu = ThreadCpu.read();
        long clientCpu = clientCpuNanos();
        long dbCpu = dbCpuMillis();
        Instant started = Instant.now();
        go.countDown();
        for (Future<Object> future : futures) {
            future.get(5, TimeUnit.MINUTES);
        }
        Instant sendersDone = Instant.now();
        int expected = 0;
        for (int code : status) {
            expected += code == 202 ? 1 : 0;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (seen.size() < expected && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        Instant last = seen.values().stream().max(Instant::compareTo).orElse(sendersDone);
        round.cpuNanos = BenchFigures.processCpuNanos() - cpu;
        round.cpuByThread = ThreadCpu.minus(ThreadCpu.read(), threadCpu);
        round.clientCpuNanos = sender.remote() ? clientCpuNanos() - clientCpu : 0;
        long dbCpuAfter = dbCpuMillis();
        round.dbCpuMillis = dbCpu < 0 || dbCpuAfter < 0 ? -1 : dbCpuAfter - dbCpu;
        Instant end = last.isAfter(sendersDone) ? last : sendersDone;
        round.seconds = Duration.between(started, end).toNanos() / 1e9;
        round.acceptSeconds = Duration.between(started, sendersDone).toNanos() / 1e9;
        Thread.sleep(200); // let the last tick's metrics land
        round.meters = Meters.read(registry).minus(before);
        if (countTransactions) {
            Thread.sleep(STATS_SETTLE_MS);
            double window = (System.nanoTime() - windowStarted) / 1e9;
            // Outside the burst the loops poll as when idle; that share is taken out.
            round.netXacts = (xacts() - xactsBefore) - idleXactsPerSecond * Math.max(0, window - round.seconds);
        }

        Map<String, Instant> created = taskCreatedAt(runId);
        long versionAfter = longQuery("SELECT db_record_version FROM eec_workflow_run WHERE run_id = ?", runId);
        round.commits = versionAfter - versionBefore;
        for (int i = 0; i < pairs; i++) {
            if (status[i] != 202) {
                round.rejected++;
                continue;
            }
            round.accepted++;
            String node = "t" + i;
            Instant dispatched = seen.get(node);
            Instant tickStart = created.get(node);
            if (dispatched == null || tickStart == null) {
                round.problems.add("t" + i + "_not_dispatched(seen=" + (dispatched != null) + ",row=" + (tickStart != null) + ")");
                continue;
            }
            double latency = micros(accepted[i], dispatched) / 1000.0;
            if (latency < 0) {
                round.negative++;
            }
            round.latencies.add(latency);
            round.tickStartLatencies.add(micros(accepted[i], tickStart) / 1000.0);
            round.tickToVisible.add(micros(tickStart, dispatched) / 1000.0);
            round.acceptLatencies.add(micros(sent[i], accepted[i]) / 1000.0);
        }
        if (created.size() != round.accepted) {
            round.problems.add("task_rows=" + created.size() + "_accepted=" + round.accepted);
        }
        if (seen.size() != round.accepted) {
            round.problems.add("notified=" + seen.size() + "_accepted=" + round.accepted);
        }
        long unconsumed = longQuery("SELECT count(*) FROM eec_run_inbox WHERE run_id = ? AND consumed_at IS NULL", runId);
        if (unconsumed != 0) {
            round.problems.add("unconsumed_inbox=" + unconsumed);
        }
        // Untimed: end the run (its pending ext: tasks go with it) so the next round starts from the same queue.
        operations.cancel(TENANT, runId, "benchmark round over");
        long ended = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (longQuery("SELECT count(*) FROM eec_workflow_run WHERE run_id = ? AND status = 'RUNNING'", runId) > 0) {
            if (System.nanoTime() > ended) {
                throw new IllegalStateException("run " + runId + " was not cancelled within 60 s");
            }
            Thread.sleep(20);
        }
        visible.remove(runId);
        return round;
    }

    private static long micros(Instant from, Instant to) {
        return Duration.between(from, to).toNanos() / 1000;
    }

    private Map<String, Instant> taskCreatedAt(UUID runId) throws Exception {
        Map<String, Instant> created = new ConcurrentHashMap<>();
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT node_id, created_at FROM eec_queue_item WHERE run_id = ? AND kind = 'TASK'")) {
            statement.setObject(1, runId);
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    created.put(rs.getString(1), rs.getObject(2, java.time.OffsetDateTime.class).toInstant());
                }
            }
        }
        return created;
    }

    /**
     * CPU time (ms) of the PostgreSQL server so far, when it runs on this machine: the postmaster (with its
     * exited children) and every process it forked, read from /proc; -1 when that is not possible (remote).
     */
    private long dbCpuMillis() {
        try {
            long backend;
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                backend = rs.getLong(1);
            }
            long postmaster = Long.parseLong(stat(backend)[1]);
            String[] own = stat(postmaster);
            long ticks = Long.parseLong(own[11]) + Long.parseLong(own[12]) + Long.parseLong(own[13]) + Long.parseLong(own[14]);
            try (var processes = Files.list(Path.of("/proc"))) {
                for (Path dir : processes.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                    try {
                        String[] fields = stat(Long.parseLong(dir.getFileName().toString()));
                        if (Long.parseLong(fields[1]) == postmaster) {
                            ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                        }
                    } catch (Exception gone) {
                        // exited meanwhile
                    }
                }
            }
            return ticks * 1000 / CLOCK_TICKS;
        } catch (Exception e) {
            return -1;
        }
    }

    /** /proc/<pid>/stat from the field after the command name: [0] state, [1] ppid, ..., [11] utime, [12] stime. */
    private static String[] stat(long pid) throws Exception {
        String text = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return text.substring(text.lastIndexOf(')') + 2).trim().split(" ");
    }

    private final List<Thread> clientThreads = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Threads of the benchmark's own client side (senders, HTTP client), whose CPU is not Ductor's. */
    private java.util.concurrent.ThreadFactory clientThreads(String prefix) {
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + next.incrementAndGet());
            thread.setDaemon(true);
            clientThreads.add(thread);
            return thread;
        };
    }

    /**
     * CPU time of the client side so far: the sender and HTTP-executor threads, and the HTTP client's selector
     * thread (named HttpClient-...-SelectorManager by the JDK).
     */
    private long clientCpuNanos() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long total = 0;
        java.util.Set<Long> counted = new java.util.HashSet<>();
        for (Thread thread : clientThreads) {
            counted.add(thread.getId());
        }
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("HttpClient-")) {
                counted.add(thread.getId());
            }
        }
        for (long id : counted) {
            long cpu = threads.getThreadCpuTime(id);
            total += Math.max(0, cpu);
        }
        return total;
    }

    /** Committed and rolled-back transactions of this database so far, as the statistics system has them. */
    private long xacts() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT xact_commit + xact_rollback FROM pg_stat_database"
                     + " WHERE datname = current_database()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long longQuery(String sql, UUID runId) throws Exception {
        try (Connection connection = dataSource.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setObject(1, runId);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    // ---------------------------------------------------------------------------------------- preparation

    private String define() throws Exception {
        StringJoiner nodes = new StringJoiner(",");
        for (int i = 0; i < pairs; i++) {
            nodes.add("{\"id\":\"s" + i + "\",\"type\":\"signal\",\"signal\":\"sig-" + i + "\"}");
            nodes.add("{\"id\":\"t" + i + "\",\"type\":\"task\",\"handler\":\"" + HANDLER + "\",\"dependsOn\":[\"s" + i + "\"]}");
        }
        String name = "bench-signals-" + UUID.randomUUID().toString().substring(0, 8);
        workflows.put(TENANT, name, mapper.readTree("{\"nodes\":[" + nodes + "]}"), OptionalLong.empty());
        return name;
    }

    /** A notification per TASK row of this benchmark's handler, delivered when the inserting transaction commits. */
    private void installTrigger() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            statement.execute("""
                    CREATE OR REPLACE FUNCTION ductor_bench_dispatch() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        PERFORM pg_notify('%s', NEW.run_id::text || ' ' || NEW.node_id);
                        RETURN NULL;
                    END $$""".formatted(CHANNEL));
            statement.execute("DROP TRIGGER IF EXISTS ductor_bench_dispatch ON eec_queue_item");
            statement.execute("CREATE TRIGGER ductor_bench_dispatch AFTER INSERT ON eec_queue_item FOR EACH ROW"
                    + " WHEN (NEW.kind = 'TASK' AND NEW.handler = '" + HANDLER + "') EXECUTE FUNCTION ductor_bench_dispatch()");
        }
    }

    private void dropTrigger() {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            statement.execute("DROP TRIGGER IF EXISTS ductor_bench_dispatch ON eec_queue_item");
            statement.execute("DROP FUNCTION IF EXISTS ductor_bench_dispatch()");
        } catch (Exception e) {
            System.err.println("could not drop the benchmark's trigger: " + e);
        }
    }

    private Thread listen(Connection connection) throws Exception {
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            statement.execute("LISTEN " + CHANNEL);
        }
        PGConnection pg = connection.unwrap(PGConnection.class);
        Thread thread = new Thread(() -> {
            try {
                while (listening) {
                    PGNotification[] notifications = pg.getNotifications(50);
                    if (notifications == null) {
                        continue;
                    }
                    Instant now = Instant.now();
                    for (PGNotification notification : notifications) {
                        String[] parts = notification.getParameter().split(" ", 2);
                        Map<String, Instant> run = visible.get(UUID.fromString(parts[0]));
                        if (run != null) {
                            run.putIfAbsent(parts[1], now);
                        }
                    }
                }
            } catch (Throwable e) {
                if (listening) {
                    listenerFailure = e;
                }
            }
        }, "bench-dispatch-listener");
        thread.setDaemon(true);
        thread.setPriority(Thread.MAX_PRIORITY);
        clientThreads.add(thread);
        thread.start();
        return thread;
    }

    /** Deletes every row this benchmark wrote (its own tenant) from an external database. */
    private void removeBenchData() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            String runs = "(SELECT run_id FROM eec_workflow_run WHERE tenant = '" + TENANT + "')";
            statement.execute("DELETE FROM eec_run_transition WHERE run_id IN " + runs);
            statement.execute("DELETE FROM eec_run_inbox WHERE run_id IN " + runs);
            statement.execute("DELETE FROM eec_queue_item WHERE tenant = '" + TENANT + "' OR run_id IN " + runs);
            statement.execute("DELETE FROM eec_workflow_run WHERE tenant = '" + TENANT + "'");
            statement.execute("DELETE FROM eec_workflow_revision WHERE tenant = '" + TENANT + "'");
            statement.execute("DELETE FROM eec_workflow_definition WHERE tenant = '" + TENANT + "'");
        }
    }

    // ------------------------------------------------------------------------------------------- figures

    /** Deltas of Ductor's own meters over one round. */
    private record Meters(double committed, double conflicts, double noops, double errors, double requeues, double tickCount,
                          double tickSeconds) {
        static Meters read(MeterRegistry registry) {
            DistributionSummary summary = registry.find("ductor.tick.seconds").summary();
            return new Meters(count(registry, "committed"), count(registry, "conflict"), count(registry, "noop"),
                    count(registry, "error"), value(registry.find("ductor.requeues").counter()),
                    summary == null ? 0 : summary.count(), summary == null ? 0 : summary.totalAmount());
        }

        private static double count(MeterRegistry registry, String outcome) {
            return value(registry.find("ductor.tick").tag("outcome", outcome).counter());
        }

        private static double value(Counter counter) {
            return counter == null ? 0 : counter.count();
        }

        Meters minus(Meters o) {
            return new Meters(committed - o.committed, conflicts - o.conflicts, noops - o.noops, errors - o.errors,
                    requeues - o.requeues, tickCount - o.tickCount, tickSeconds - o.tickSeconds);
        }
    }

    private static final class Round {
        int accepted;
        int rejected;
        int negative;
        long commits;
        double seconds;
        double acceptSeconds;
        long cpuNanos;
        long clientCpuNanos;
        long dbCpuMillis;
        Map<String, Long> cpuByThread = Map.of();
        double load;
        double netXacts;
        Meters meters;
        final List<Double> tickToVisible = new ArrayList<>();
        final List<Double> latencies = new ArrayList<>();
        final List<Double> tickStartLatencies = new ArrayList<>();
        final List<Double> acceptLatencies = new ArrayList<>();
        final List<String> problems = new ArrayList<>();

        double perSecond() {
            return seconds == 0 ? 0 : accepted / seconds;
        }
    }

    private static final class Totals {
        int rounds;
        long accepted;
        long rejected;
        long negative;
        long commits;
        double seconds;
        double acceptSeconds;
        long cpuNanos;
        long clientCpuNanos;
        double loadSum;
        double tickAttempts;
        double conflicts;
        double noops;
        double errors;
        double requeues;
        double tickSeconds;
        double netXacts;
        long dbCpuMillis;
        final Map<String, Long> cpuByThread = new java.util.TreeMap<>();
        final List<Double> tickToVisible = new ArrayList<>();
        final List<Double> latencies = new ArrayList<>();
        final List<Double> tickStartLatencies = new ArrayList<>();
        final List<Double> acceptLatencies = new ArrayList<>();
        final List<String> problems = new ArrayList<>();

        void add(Round round) {
            rounds++;
            round.cpuByThread.forEach((kind, nanos) -> cpuByThread.merge(kind, nanos, Long::sum));
            netXacts += round.netXacts;
            dbCpuMillis = dbCpuMillis < 0 || round.dbCpuMillis < 0 ? -1 : dbCpuMillis + round.dbCpuMillis;
            tickToVisible.addAll(round.tickToVisible);
            accepted += round.accepted;
            rejected += round.rejected;
            negative += round.negative;
            commits += round.commits;
            seconds += round.seconds;
            acceptSeconds += round.acceptSeconds;
            cpuNanos += round.cpuNanos;
            clientCpuNanos += round.clientCpuNanos;
            loadSum += round.load;
            tickAttempts += round.meters.tickCount();
            conflicts += round.meters.conflicts();
            noops += round.meters.noops();
            errors += round.meters.errors();
            requeues += round.meters.requeues();
            tickSeconds += round.meters.tickSeconds();
            latencies.addAll(round.latencies);
            tickStartLatencies.addAll(round.tickStartLatencies);
            acceptLatencies.addAll(round.acceptLatencies);
            problems.addAll(round.problems);
            if (round.rejected > 0) {
                problems.add(round.rejected + "_not_202");
            }
        }

        double perSecond() {
            return seconds == 0 ? 0 : accepted / seconds;
        }

        double acceptedPerSecond() {
            return acceptSeconds == 0 ? 0 : accepted / acceptSeconds;
        }

        double[] latencies() {
            return latencies.stream().mapToDouble(Double::doubleValue).toArray();
        }

        double[] tickToVisible() {
            return tickToVisible.stream().mapToDouble(Double::doubleValue).toArray();
        }

        double[] tickStartLatencies() {
            return tickStartLatencies.stream().mapToDouble(Double::doubleValue).toArray();
        }

        double[] acceptLatencies() {
            return acceptLatencies.stream().mapToDouble(Double::doubleValue).toArray();
        }
    }
}
