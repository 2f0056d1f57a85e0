package dev.ductor.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.TaskClaim;
import dev.ductor.queue.TierWeights;
import dev.ductor.run.coordinator.Attempts;
import dev.ductor.run.LoadedRun;
import dev.ductor.run.coordinator.TickRetries;
import dev.ductor.run.commit.RunCommitter;
import dev.ductor.run.RunConflictException;
import dev.ductor.run.RunLoader;
import dev.ductor.run.commit.RunStarter;
import dev.ductor.run.commit.StartRequest;
import dev.ductor.run.core.Tick;
import dev.ductor.run.core.TickResult;
import dev.ductor.worker.TaskResults;
import dev.ductor.workflow.WorkflowService;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bench/run.sh ticks}: committed coordinator ticks per second through Ductor's real code path, at low
 * contention (every run ticked by one thread at a time) and at high contention (several wakeups of one run
 * ticked at once), a group-commit experiment (several runs' ticks in one transaction), and the raw-SQL
 * ceiling of the same statements with pgbench ({@code bench/sql/tick.sql}) against the same database.
 *
 * <p>Named {@code *Bench}, so surefire's default includes never pick it up, and enabled only with
 * {@code -Dbench.scenario=ticks}: it runs on demand only. The figures go to {@code bench.out} as key=value
 * lines; docs/bench-journal/ticks.md explains each one.
 *
 * <p>Every measured tick has work to do: each run is a long chain of {@code ext:} tasks, and before a
 * measured phase (untimed) the current task of every run is claimed with the real claim statement and
 * completed through {@link TaskResults}, and the wakeup this enqueues is claimed, as a coordinator would.
 * The measured call is then exactly what {@code Coordinator.process} does for one claimed wakeup:
 * {@link TickRetries#tick} (load, pure tick, versioned commit, history, outbox, inbox consumed, wakeup acked;
 * retried on conflict).
 */
@QuarkusTest
@TestProfile(BenchProfile.class)
@EnabledIfSystemProperty(named = "bench.scenario", matches = "ticks")
@Tag("bench")
class TickBench {

    private static final String TENANT = "ductor-bench";
    private static final String TIER = "standard";
    /** The lease token of the wakeup rows prepared for pgbench, whose ack is Ductor's {@code id AND lease_token}. */
    private static final String PGBENCH_LEASE = "00000000-0000-0000-0000-00000000b0b0";
    private static final Duration CLAIM_LEASE = Duration.ofMinutes(30);

    @Inject
    WorkflowService workflows;

    @Inject
    RunStarter starter;

    @Inject
    TickRetries retries;

    @Inject
    RunLoader loader;

    @Inject
    RunCommitter committer;

    @Inject
    QueueRepository queue;


    @Inject

    TaskClaim claim;

    @Inject
    TaskResults results;

    @Inject
    TierWeights weights;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    Clock clock;

    @Inject
    ObjectMapper mapper;

    @Inject
    MeterRegistry registry;

    private final int runs = intProperty("bench.runs", 2000);
    private final int threads = intProperty("bench.threads", 8);
    private final int warmupRounds = intProperty("bench.warmup-rounds", 1);
    private final int rounds = intProperty("bench.rounds", 3);
    private final int hiRuns = intProperty("bench.hi.runs", 100);
    private final int hiWakeups = intProperty("bench.hi.wakeups", 8);
    private final int hiGroups = intProperty("bench.hi.groups", 1);
    private final int hiWarmupRounds = intProperty("bench.hi.warmup-rounds", 1);
    private final int hiRounds = intProperty("bench.hi.rounds", 3);
    private final int groupK = intProperty("bench.group.k", 8);
    private final int groupWarmupRounds = intProperty("bench.group.warmup-rounds", 1);
    private final int groupRounds = intProperty("bench.group.rounds", 3);
    private final int pgbenchSeconds = intProperty("bench.pgbench.seconds", 15);
    private final int pgbenchBuffer = intProperty("bench.pgbench.buffer", 100);
    private final String pgbench = System.getProperty("bench.pgbench", "").trim();
    private final Path sqlScript = Path.of(System.getProperty("bench.sql", "bench/sql/tick.sql"));
    private final Path out = Path.of(System.getProperty("bench.out", "target/bench/ticks.properties"));

    private final Map<String, String> figures = new LinkedHashMap<>();
    private JsonNode taskOutput;
    /** The low-contention runs' workflow; pgbench ticks copies of its runs. */
    private String lowWorkflow;

    @Test
    void ticks() throws Exception {
        if (runs % threads != 0) {
            throw new IllegalArgumentException("bench.runs must be a multiple of bench.threads (pgbench partitions the runs per client)");
        }
        taskOutput = mapper.readTree("{\"ok\":true}");
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.deleteIfExists(out);
        Counters before = Counters.read(registry);
        int poolSize = Math.max(threads, hiWakeups * hiGroups);
        ExecutorService pool = Executors.newFixedThreadPool(poolSize);
        try {
            put("cores", Runtime.getRuntime().availableProcessors());
            put("db", jdbcUrl().replaceAll("\\?.*", ""));
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT current_setting('server_version'), current_setting('fsync'),"
                         + " current_setting('synchronous_commit')")) {
                rs.next();
                put("postgres", rs.getString(1).replaceAll("\\s.*", ""));
                put("postgres_fsync", rs.getString(2));
                put("postgres_synchronous_commit", rs.getString(3));
            }
            put("threads", threads);
            put("runs", runs);
            int chain = Math.max(warmupRounds + rounds, groupWarmupRounds + groupRounds) + 2;

            // Low contention: `runs` runs, `threads` threads, each run owned by one thread.
            lowWorkflow = chain("ext:bench-low", chain);
            List<UUID> low = startRuns(lowWorkflow, runs, pool);
            analyze();
            Stats lowAll = new Stats();
            Stats lowMeasured = new Stats();
            for (int round = 0; round < warmupRounds + rounds; round++) {
                Map<UUID, List<QueueItem>> wakeups = deliver("ext:bench-low", low, 1, pool);
                Stats phase = singleTicks(low, wakeups, pool);
                lowAll.add(phase);
                if (round >= warmupRounds) {
                    lowMeasured.add(phase);
                }
            }
            report("low", lowMeasured);
            double ticksPerSecond = lowMeasured.committedPerSecond();

            // High contention: `hiWakeups` wakeups of the same run ticked at once, `hiGroups` such runs at a time.
            String hiWorkflow = chain("ext:bench-hi", hiWarmupRounds + hiRounds + 2);
            List<UUID> hi = startRuns(hiWorkflow, hiRuns, pool);
            analyze();
            Stats hiAll = new Stats();
            Stats hiMeasured = new Stats();
            for (int round = 0; round < hiWarmupRounds + hiRounds; round++) {
                Map<UUID, List<QueueItem>> wakeups = deliver("ext:bench-hi", hi, hiWakeups, pool);
                Stats phase = contendedTicks(hi, wakeups, pool);
                hiAll.add(phase);
                if (round >= hiWarmupRounds) {
                    hiMeasured.add(phase);
                }
            }
            put("hi_wakeups_per_run", hiWakeups);
            put("hi_runs_at_once", hiGroups);
            report("hi", hiMeasured);
            put("hi_calls_per_s", fixed(hiMeasured.callsPerSecond(), 1));
            put("hi_exhausted", hiMeasured.exhausted);

            // Group commit (experiment): `groupK` runs' ticks in one transaction, each still version-checked.
            String groupWorkflow = chain("ext:bench-group", chain);
            List<UUID> grouped = startRuns(groupWorkflow, runs, pool);
            analyze();
            Stats groupAll = new Stats();
            Stats groupMeasured = new Stats();
            for (int round = 0; round < groupWarmupRounds + groupRounds; round++) {
                Map<UUID, List<QueueItem>> wakeups = deliver("ext:bench-group", grouped, 1, pool);
                Stats phase = groupTicks(grouped, wakeups, pool);
                groupAll.add(phase);
                if (round >= groupWarmupRounds) {
                    groupMeasured.add(phase);
                }
            }
            put("group_k", groupK);
            put("group_ticks_per_s", fixed(groupMeasured.committedPerSecond(), 1));
            put("group_commits", groupMeasured.committed);
            put("group_tx_p50_ms", millis(groupMeasured.percentile(0.50)));
            put("group_tx_p99_ms", millis(groupMeasured.percentile(0.99)));
            put("group_aborts", groupMeasured.groupAborts);
            put("group_jvm_cpu_ms_per_commit", fixed(groupMeasured.cpuNanos / 1e6 / Math.max(1, groupMeasured.committed), 2));
            put("group_load1", fixed(groupMeasured.loadSum / Math.max(1, groupMeasured.phases), 2));

            // Plausibility: every committed tick is one version bump and a gap-free history.
            checkCommits("low", lowWorkflow, lowAll.committed);
            checkCommits("hi", hiWorkflow, hiAll.committed);
            checkCommits("group", groupWorkflow, groupAll.committed);
            Counters after = Counters.read(registry);
            long countedConflicts = lowAll.conflicts + hiAll.conflicts + groupAll.retriedConflicts;
            long meteredConflicts = Math.round(after.conflicts() - before.conflicts());
            put("check_conflicts_metered", (meteredConflicts == countedConflicts ? "ok" : "MISMATCH") + "(counted="
                    + countedConflicts + ",metered=" + meteredConflicts + ")");

            // The raw-SQL ceiling, same database, same client count.
            String ceiling = "NA";
            String ratio = "NA";
            String groupRatio = "NA";
            Double sqlTps = sqlCeiling(chain);
            if (sqlTps != null) {
                ceiling = fixed(sqlTps, 1);
                ratio = fixed(ticksPerSecond / sqlTps, 3);
                groupRatio = fixed(groupMeasured.committedPerSecond() / sqlTps, 3);
            }
            put("group_ratio", groupRatio);
            put("ticks_per_s", fixed(ticksPerSecond, 1));
            put("ceiling_per_s", ceiling);
            put("ratio", ratio);
        } finally {
            pool.shutdownNow();
            write();
            if (System.getenv("QUARKUS_DATASOURCE_JDBC_URL") != null) {
                removeBenchData(); // an external database keeps nothing of ours; the embedded one is thrown away
            }
        }
    }

    /** Deletes every row this benchmark wrote (its own tenant) from an external database. */
    private void removeBenchData() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            statement.execute("DROP TABLE IF EXISTS bench_tick_run");
            String runs = "(SELECT run_id FROM eec_workflow_run WHERE tenant = '" + TENANT + "')";
            statement.execute("DELETE FROM eec_run_transition WHERE run_id IN " + runs);
            statement.execute("DELETE FROM eec_run_inbox WHERE run_id IN " + runs);
            statement.execute("DELETE FROM eec_queue_item WHERE tenant = '" + TENANT + "' OR run_id IN " + runs);
            statement.execute("DELETE FROM eec_workflow_run WHERE tenant = '" + TENANT + "'");
            statement.execute("DELETE FROM eec_workflow_revision WHERE tenant = '" + TENANT + "'");
            statement.execute("DELETE FROM eec_workflow_definition WHERE tenant = '" + TENANT + "'");
        }
    }

    // ---------------------------------------------------------------------------------------------- phases

    /** Each thread ticks its own slice of runs, one after another: no two threads ever touch the same run. */
    private Stats singleTicks(List<UUID> runIds, Map<UUID, List<QueueItem>> wakeups, ExecutorService pool) throws Exception {
        return timed(pool, threads, slice -> {
            Stats stats = new Stats();
            for (int i = slice; i < runIds.size(); i += threads) {
                UUID runId = runIds.get(i);
                tick(runId, wakeups.get(runId), stats);
            }
            return stats;
        });
    }

    /**
     * {@code hiGroups} groups of {@code hiWakeups} threads; a group's threads wait for each other at a barrier,
     * then each ticks the same run for its own claimed wakeup, then on to the group's next run.
     */
    private Stats contendedTicks(List<UUID> runIds, Map<UUID, List<QueueItem>> wakeups, ExecutorService pool) throws Exception {
        List<CyclicBarrier> barriers = new ArrayList<>();
        for (int g = 0; g < hiGroups; g++) {
            barriers.add(new CyclicBarrier(hiWakeups));
        }
        return timed(pool, hiGroups * hiWakeups, worker -> {
            int group = worker / hiWakeups;
            int seat = worker % hiWakeups;
            Stats stats = new Stats();
            for (int i = group; i < runIds.size(); i += hiGroups) {
                UUID runId = runIds.get(i);
                barriers.get(group).await(2, TimeUnit.MINUTES);
                tick(runId, List.of(wakeups.get(runId).get(seat)), stats);
            }
            return stats;
        });
    }

    /**
     * The experiment: each thread takes its slice in chunks of {@code groupK} runs and, in one transaction,
     * loads, ticks and commits every run of the chunk through RunLoader, Tick and RunCommitter (each commit
     * still the versioned UPDATE) and acks its wakeups, then commits once. A conflict on any run aborts the
     * whole group; it then falls back to single ticks for that chunk.
     */
    private Stats groupTicks(List<UUID> runIds, Map<UUID, List<QueueItem>> wakeups, ExecutorService pool) throws Exception {
        return timed(pool, threads, slice -> {
            Stats stats = new Stats();
            List<UUID> mine = new ArrayList<>();
            for (int i = slice; i < runIds.size(); i += threads) {
                mine.add(runIds.get(i));
            }
            for (int from = 0; from < mine.size(); from += groupK) {
                List<UUID> chunk = mine.subList(from, Math.min(mine.size(), from + groupK));
                int[] committed = new int[1];
                long started = System.nanoTime();
                try {
                    QuarkusTransaction.requiringNew().run(() -> {
                        committed[0] = 0;
                        Instant now = clock.instant();
                        for (UUID runId : chunk) {
                            LoadedRun loaded = loader.load(runId).orElseThrow();
                            TickResult result = Tick.tick(loaded.snapshot(), loaded.inbox(), now);
                            if (!result.isNoop()) {
                                committer.commit(loaded, result, now);
                                committed[0]++;
                            }
                            for (QueueItem wakeup : wakeups.get(runId)) {
                                queue.ack(wakeup.id(), wakeup.leaseToken());
                            }
                        }
                    });
                    stats.latencies.add(System.nanoTime() - started);
                    stats.calls++;
                    stats.committed += committed[0];
                    stats.noops += chunk.size() - committed[0];
                    stats.attempts += chunk.size();
                } catch (RunConflictException conflict) {
                    stats.groupAborts++;
                    stats.conflicts++;
                    stats.attempts += chunk.size();
                    Stats fallback = new Stats();
                    for (UUID runId : chunk) {
                        tick(runId, wakeups.get(runId), fallback);
                    }
                    stats.retriedConflicts += fallback.conflicts;
                    fallback.latencies.clear();
                    fallback.calls = 0;
                    stats.add(fallback);
                }
            }
            return stats;
        });
    }

    /** One wakeup's tick, as Coordinator.process runs it: TickRetries.tick with the claimed wakeup to ack. */
    private void tick(UUID runId, List<QueueItem> acks, Stats stats) {
        Attempts attempts = new Attempts();
        long started = System.nanoTime();
        try {
            TickResult result = retries.tick(runId, List.of(), acks, attempts);
            stats.latencies.add(System.nanoTime() - started);
            if (result != null && !result.isNoop()) {
                stats.committed++;
            } else {
                stats.noops++;
            }
            stats.conflicts += attempts.made() - 1; // only a conflict is retried; anything else propagates
        } catch (RunConflictException exhausted) {
            stats.exhausted++;
            stats.conflicts += attempts.made();
        }
        stats.calls++;
        stats.attempts += attempts.made();
    }

    private interface Work {
        Stats run(int worker) throws Exception;
    }

    /** Runs {@code workers} workers from one start signal; the phase's wall time is start to last finish. */
    private static Stats timed(ExecutorService pool, int workers, Work work) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Stats>> futures = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int worker = w;
            futures.add(pool.submit(() -> {
                go.await();
                return work.run(worker);
            }));
        }
        double load = load1();
        long cpu = processCpuNanos();
        long started = System.nanoTime();
        go.countDown();
        Stats total = new Stats();
        for (Future<Stats> future : futures) {
            total.add(future.get(30, TimeUnit.MINUTES));
        }
        total.wallNanos = System.nanoTime() - started;
        total.cpuNanos = processCpuNanos() - cpu;
        total.loadSum = load;
        total.phases = 1;
        return total;
    }

    // ------------------------------------------------------------------------------------------ preparation

    private String chain(String handler, int length) {
        StringBuilder nodes = new StringBuilder();
        for (int i = 0; i < length; i++) {
            nodes.append(i == 0 ? "" : ",").append("{\"id\":\"n").append(i).append("\",\"type\":\"task\",\"handler\":\"")
                    .append(handler).append("\"").append(i == 0 ? "" : ",\"dependsOn\":[\"n" + (i - 1) + "\"]").append("}");
        }
        String name = handler.replace("ext:", "") + "-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            workflows.put(TENANT, name, mapper.readTree("{\"nodes\":[" + nodes + "]}"), OptionalLong.empty());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return name;
    }

    private List<UUID> startRuns(String workflow, int count, ExecutorService pool) throws Exception {
        UUID[] ids = new UUID[count];
        JsonNode input = mapper.readTree("{\"order\":42}");
        inParallel(pool, count, i -> ids[i] = starter.start(TENANT, workflow, new StartRequest(input, null, TIER)).run().runId());
        return List.of(ids);
    }

    /**
     * Untimed: claims every run's current task with the real claim statement, completes each through
     * TaskResults (inbox row + wakeup), adds {@code wakeupsPerRun - 1} redundant wakeups per run, and claims
     * all wakeups as a coordinator would. Returns each run's claimed wakeups.
     */
    private Map<UUID, List<QueueItem>> deliver(String handler, List<UUID> runIds, int wakeupsPerRun, ExecutorService pool)
            throws Exception {
        List<QueueItem> tasks = claimAll(max -> claim.claimTasks(Set.of(handler), TENANT, null, "bench", max, CLAIM_LEASE,
                clock.instant(), weights), "tasks", runIds.size());
        inParallel(pool, tasks.size(), i -> results.complete(tasks.get(i).id(), tasks.get(i).leaseToken(), taskOutput));
        if (wakeupsPerRun > 1) {
            QuarkusTransaction.requiringNew().run(() -> {
                Instant now = clock.instant();
                List<NewQueueItem> redundant = new ArrayList<>();
                for (UUID runId : runIds) {
                    for (int i = 1; i < wakeupsPerRun; i++) {
                        redundant.add(NewQueueItem.wakeup(TENANT, TIER, runId, now));
                    }
                }
                queue.enqueue(redundant, now);
            });
        }
        Map<UUID, List<QueueItem>> byRun = new HashMap<>();
        for (QueueItem wakeup : claimAll(max -> queue.claim(List.of(QueueKind.WAKEUP), "bench", max, CLAIM_LEASE,
                clock.instant()), "wakeups", runIds.size() * wakeupsPerRun)) {
            byRun.computeIfAbsent(wakeup.runId(), r -> new ArrayList<>()).add(wakeup);
        }
        for (UUID runId : runIds) {
            List<QueueItem> mine = byRun.get(runId);
            if (mine == null || mine.size() != wakeupsPerRun) {
                throw new IllegalStateException("run " + runId + " has " + (mine == null ? 0 : mine.size())
                        + " claimed wakeups, expected " + wakeupsPerRun);
            }
        }
        return byRun;
    }

    private interface Claim {
        List<QueueItem> claim(int max);
    }

    /** Claims with the production claim statement until {@code expected} items are ours. */
    private List<QueueItem> claimAll(Claim claim, String what, int expected) throws InterruptedException {
        List<QueueItem> claimed = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (claimed.size() < expected) {
            int max = expected - claimed.size();
            claimed.addAll(QuarkusTransaction.requiringNew().call(() -> claim.claim(max)));
            if (claimed.size() < expected) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("claimed " + claimed.size() + " " + what + ", expected " + expected);
                }
                Thread.sleep(5);
            }
        }
        return claimed;
    }

    private interface IndexTask {
        void run(int index) throws Exception;
    }

    private void inParallel(ExecutorService pool, int count, IndexTask task) throws Exception {
        List<Future<Object>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int slice = t;
            futures.add(pool.submit((Callable<Object>) () -> {
                for (int i = slice; i < count; i += threads) {
                    task.run(i);
                }
                return null;
            }));
        }
        for (Future<Object> future : futures) {
            future.get(30, TimeUnit.MINUTES);
        }
    }

    private void analyze() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("ANALYZE eec_workflow_run, eec_run_inbox, eec_run_transition, eec_queue_item");
        }
    }

    // ------------------------------------------------------------------------------------------- pgbench

    /**
     * pgbench runs {@code bench/sql/tick.sql} with the same client count against the same database, over
     * copies of the low-contention runs (so node_states has the same size) listed in {@code bench_tick_run}.
     * Returns its tps, or null when pgbench is not available or failed.
     */
    private Double sqlCeiling(int chainLength) throws Exception {
        if (pgbench.isEmpty()) {
            put("pgbench", "not_found");
            return null;
        }
        String sqlWorkflow = chain("ext:bench-sql", chainLength);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            statement.execute("DROP TABLE IF EXISTS bench_tick_run");
            statement.execute("CREATE TABLE bench_tick_run (idx integer PRIMARY KEY, run_id uuid NOT NULL UNIQUE)");
            try (PreparedStatement copy = connection.prepareStatement("""
                    WITH copied AS (
                        INSERT INTO eec_workflow_run (run_id, tenant, workflow_name, workflow_revision, status, tier, node_states,
                                                      last_transition_seq, state_checksum, db_record_version, input, output,
                                                      idempotency_key, created_at, updated_at)
                        SELECT gen_random_uuid(), tenant, ?, workflow_revision, status, tier, node_states, last_transition_seq,
                               state_checksum, 0, input, output, NULL, now(), now()
                          FROM eec_workflow_run WHERE tenant = ? AND workflow_name = ?
                        RETURNING run_id)
                    INSERT INTO bench_tick_run (idx, run_id) SELECT row_number() OVER (ORDER BY run_id), run_id FROM copied""")) {
                copy.setString(1, sqlWorkflow);
                copy.setString(2, TENANT);
                copy.setString(3, lowWorkflow);
                copy.executeUpdate();
            }
            // Each run gets `buffer` pending results, each paired (through task_id) with a claimed wakeup to ack.
            try (PreparedStatement buffer = connection.prepareStatement("""
                    WITH w AS (
                        INSERT INTO eec_queue_item (kind, tenant, tier, run_id, available_at, created_at, lease_token, lease_owner,
                                                    deliveries)
                        SELECT 'WAKEUP', ?, ?, b.run_id, now() + interval '1 day', now(), CAST(? AS uuid), 'pgbench', 1
                          FROM generate_series(1, ?) g CROSS JOIN bench_tick_run b ORDER BY g, b.idx
                        RETURNING id, run_id)
                    INSERT INTO eec_run_inbox (run_id, kind, dedup_key, node_id, attempt, task_id, payload, created_at)
                    SELECT run_id, 'TASK_RESULT', 'result:bench:' || id, 'n0', 1, id, CAST(? AS jsonb), now() FROM w ORDER BY id""")) {
                buffer.setString(1, TENANT);
                buffer.setString(2, TIER);
                buffer.setString(3, PGBENCH_LEASE);
                buffer.setInt(4, pgbenchBuffer);
                buffer.setString(5, "{\"completed\":true,\"output\":{\"ok\":true},\"leaseToken\":\"" + UUID.randomUUID() + "\"}");
                buffer.executeUpdate();
            }
        }
        analyze();

        Map<String, String> target = pgTarget();
        Path log = out.toAbsolutePath().getParent().resolve("pgbench.log");
        List<String> command = List.of(pgbench, "-n", "-M", "prepared", "-c", Integer.toString(threads),
                "-j", Integer.toString(threads), "-T", Integer.toString(pgbenchSeconds),
                "-D", "per=" + (runs / threads), "-f", sqlScript.toAbsolutePath().toString(),
                "-h", target.get("host"), "-p", target.get("port"), "-U", target.get("user"), target.get("db"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        if (!target.get("password").isEmpty()) {
            builder.environment().put("PGPASSWORD", target.get("password"));
        }
        put("pgbench_load1", fixed(load1(), 2));
        Process process = builder.start();
        if (!process.waitFor(pgbenchSeconds + 300L, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            put("pgbench", "timed_out(log=" + log + ")");
            return null;
        }
        String text = Files.readString(log, StandardCharsets.UTF_8);
        Double tps = number(text, "tps = ([0-9.]+) \\(without initial connection time\\)");
        Double processed = number(text, "number of transactions actually processed: ([0-9]+)");
        Double latency = number(text, "latency average = ([0-9.]+) ms");
        if (process.exitValue() != 0 || tps == null || processed == null) {
            put("pgbench", "failed(exit=" + process.exitValue() + ",log=" + log + ")");
            return null;
        }
        put("pgbench", pgbenchVersion());
        put("pgbench_clients", threads);
        put("pgbench_seconds", pgbenchSeconds);
        put("pgbench_tx", processed.longValue());
        put("pgbench_latency_avg_ms", latency == null ? "NA" : fixed(latency, 3));
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            long versions = single(statement, "SELECT coalesce(sum(r.db_record_version), 0) FROM eec_workflow_run r"
                    + " JOIN bench_tick_run b ON b.run_id = r.run_id");
            long leftMin = single(statement, "SELECT coalesce(min(left_over), 0) FROM (SELECT count(i.id) AS left_over"
                    + " FROM bench_tick_run b LEFT JOIN eec_run_inbox i ON i.run_id = b.run_id AND i.consumed_at IS NULL"
                    + " GROUP BY b.run_id) t");
            put("check_pgbench", (versions == processed.longValue() && leftMin > 0 ? "ok" : "MISMATCH") + "(tx="
                    + processed.longValue() + ",version_sum=" + versions + ",min_pending_left=" + leftMin + ")");
            statement.execute("DROP TABLE bench_tick_run");
        }
        return tps;
    }

    private Map<String, String> pgTarget() {
        String url = jdbcUrl();
        Matcher m = Pattern.compile("jdbc:postgresql://([^/:,?]+)(?::(\\d+))?[^/]*/([^?]*)(?:\\?(.*))?").matcher(url);
        if (!m.matches()) {
            throw new IllegalStateException("cannot read host, port and database from " + url);
        }
        Map<String, String> params = new HashMap<>();
        if (m.group(4) != null) {
            for (String pair : m.group(4).split("&")) {
                String[] kv = pair.split("=", 2);
                params.put(kv[0], kv.length > 1 ? kv[1] : "");
            }
        }
        var config = ConfigProvider.getConfig();
        Map<String, String> target = new HashMap<>();
        target.put("host", m.group(1));
        target.put("port", m.group(2) == null ? "5432" : m.group(2));
        target.put("db", m.group(3).isEmpty() ? "postgres" : m.group(3));
        target.put("user", config.getOptionalValue("quarkus.datasource.username", String.class)
                .orElse(params.getOrDefault("user", "postgres")));
        target.put("password", config.getOptionalValue("quarkus.datasource.password", String.class)
                .orElse(params.getOrDefault("password", "")));
        return target;
    }

    private String pgbenchVersion() {
        try {
            Process p = new ProcessBuilder(pgbench, "--version").redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor(10, TimeUnit.SECONDS);
            Matcher version = Pattern.compile("\\) ([0-9][^ ]*)").matcher(v);
            return version.find() ? version.group(1) : v.replaceAll("\\s+", "_");
        } catch (Exception e) {
            return "unknown";
        }
    }

    // ---------------------------------------------------------------------------------------------- checks

    private void checkCommits(String label, String workflow, long counted) throws Exception {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement("""
                     SELECT coalesce(sum(r.db_record_version), 0), coalesce(sum(r.last_transition_seq), 0),
                            (SELECT count(*) FROM eec_run_transition t JOIN eec_workflow_run x ON x.run_id = t.run_id
                              WHERE x.tenant = ? AND x.workflow_name = ?)
                       FROM eec_workflow_run r WHERE r.tenant = ? AND r.workflow_name = ?""")) {
            statement.setString(1, TENANT);
            statement.setString(2, workflow);
            statement.setString(3, TENANT);
            statement.setString(4, workflow);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                long versions = rs.getLong(1);
                long seqs = rs.getLong(2);
                long history = rs.getLong(3);
                String verdict = versions == counted && seqs == history ? "ok" : "MISMATCH";
                put("check_" + label, verdict + "(commits_counted=" + counted + ",version_sum=" + versions
                        + ",history_rows=" + history + ",seq_sum=" + seqs + ")");
            }
        }
    }

    private static long single(Statement statement, String sql) throws Exception {
        try (ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    // --------------------------------------------------------------------------------------------- figures

    private void report(String prefix, Stats stats) {
        put(prefix + "_ticks_per_s", fixed(stats.committedPerSecond(), 1));
        put(prefix + "_commits", stats.committed);
        put(prefix + "_attempts", stats.attempts);
        put(prefix + "_conflict_ratio", fixed(stats.ratio(stats.conflicts), 4));
        put(prefix + "_wasted_ratio", fixed(stats.ratio(stats.attempts - stats.committed), 4));
        put(prefix + "_p50_ms", millis(stats.percentile(0.50)));
        put(prefix + "_p99_ms", millis(stats.percentile(0.99)));
        put(prefix + "_seconds", fixed(stats.wallNanos / 1e9, 2));
        put(prefix + "_jvm_cpu_ms_per_commit", fixed(stats.committed == 0 ? 0 : stats.cpuNanos / 1e6 / stats.committed, 2));
        put(prefix + "_load1", fixed(stats.phases == 0 ? 0 : stats.loadSum / stats.phases, 2));
    }

    /** The machine's 1-minute load average (Linux), to judge how noisy a figure is; -1 when unknown. */
    private static double load1() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (Exception e) {
            return -1;
        }
    }

    /** CPU time of this JVM (all threads: the benchmark's, GC, JIT). */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private void put(String key, Object value) {
        figures.put(key, String.valueOf(value));
    }

    private void write() throws IOException {
        StringBuilder text = new StringBuilder();
        figures.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Files.writeString(out, text.toString(), StandardCharsets.UTF_8);
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String millis(long nanos) {
        return fixed(nanos / 1e6, 2);
    }

    private static Double number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? Double.valueOf(m.group(1)) : null;
    }

    private static String jdbcUrl() {
        return ConfigProvider.getConfig().getValue("quarkus.datasource.jdbc.url", String.class);
    }

    private static int intProperty(String name, int fallback) {
        return Integer.parseInt(System.getProperty(name, Integer.toString(fallback)).trim());
    }

    /** Ductor's own meters, for cross-checking the counted conflicts. */
    private record Counters(double conflicts) {
        static Counters read(MeterRegistry registry) {
            Counter conflict = registry.find("ductor.tick").tag("outcome", "conflict").counter();
            return new Counters(conflict == null ? 0 : conflict.count());
        }
    }

    /** What one phase (or several) counted; latencies in nanoseconds, one per successful call. */
    static final class Stats {
        long calls;
        long committed;
        long noops;
        long attempts;
        long conflicts;
        long exhausted;
        long groupAborts;
        long retriedConflicts;
        long wallNanos;
        long cpuNanos;
        double loadSum;
        int phases;
        final Longs latencies = new Longs();

        void add(Stats other) {
            calls += other.calls;
            committed += other.committed;
            noops += other.noops;
            attempts += other.attempts;
            conflicts += other.conflicts;
            exhausted += other.exhausted;
            groupAborts += other.groupAborts;
            retriedConflicts += other.retriedConflicts;
            wallNanos += other.wallNanos;
            cpuNanos += other.cpuNanos;
            loadSum += other.loadSum;
            phases += other.phases;
            latencies.addAll(other.latencies);
        }

        double committedPerSecond() {
            return wallNanos == 0 ? 0 : committed / (wallNanos / 1e9);
        }

        double callsPerSecond() {
            return wallNanos == 0 ? 0 : calls / (wallNanos / 1e9);
        }

        double ratio(long part) {
            return attempts == 0 ? 0 : (double) part / attempts;
        }

        long percentile(double p) {
            long[] sorted = latencies.sorted();
            if (sorted.length == 0) {
                return 0;
            }
            int rank = (int) Math.ceil(p * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
        }
    }

    /** A growable long[]: no boxing of tens of thousands of latencies. */
    static final class Longs {
        private long[] values = new long[1024];
        private int size;

        void add(long value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        void addAll(Longs other) {
            for (int i = 0; i < other.size; i++) {
                add(other.values[i]);
            }
        }

        void clear() {
            size = 0;
        }

        long[] sorted() {
            long[] copy = Arrays.copyOf(values, size);
            Arrays.sort(copy);
            return copy;
        }
    }
}
