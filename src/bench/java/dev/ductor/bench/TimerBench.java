package dev.ductor.bench;

import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.TaskClaim;
import dev.ductor.queue.TierWeights;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

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
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static dev.ductor.bench.BenchFigures.fixed;
import static dev.ductor.bench.BenchFigures.intProperty;
import static dev.ductor.bench.BenchFigures.percentile;

/**
 * {@code bench/run.sh timers}: the latency of the two production claims, the coordinator's
 * ({@link QueueRepository#claim} for WAKEUP and TIMER, as {@code CoordinatorLoop.round} calls it) and the
 * fair task claim ({@link TaskClaim#claimTasks}), with no other rows in the queue, then with a million
 * pending future timers, then empty again (the timers deleted, the table vacuumed). "Empty" in the result is
 * both empty phases together, which bracket the million in time, so a drift of the machine over the run
 * (neighbours' load, JIT) does not pass for an effect of the timers.
 *
 * <p>Each iteration (all loops are off, {@link BenchProfile}, so nothing else touches the queue): untimed,
 * {@link QueueRepository#enqueue} commits a handful of due items, 2 WAKEUPs and 2 TIMERs (available_at one
 * second ago) and 4 unclaimed TASKs (handler {@code ext:bench-claim}, available_at one second ago, one in
 * each of the 4 flows interactive/standard x tenants ductor-bench/ductor-bench-b); timed, each claim in its
 * own committed transaction ({@code QuarkusTransaction.requiringNew()}, as the coordinator loop and the
 * workers run it): the coordinator claim with the production batch size (32) takes the 4 coordinator items,
 * the task claim with max 4 takes the 4 tasks; untimed, the claimed items are acked (deleted by id and lease
 * token). A claim that does not return exactly its 4 items is counted in {@code check_*}.
 *
 * <p>Named {@code *Bench} and enabled only with {@code -Dbench.scenario=timers}: it runs on demand only.
 */
@QuarkusTest
@TestProfile(BenchProfile.class)
@EnabledIfSystemProperty(named = "bench.scenario", matches = "timers")
@Tag("bench")
class TimerBench {

    private static final String TENANT = "ductor-bench";
    private static final String TENANT_B = "ductor-bench-b";
    private static final String HANDLER = "ext:bench-claim";
    private static final List<QueueKind> COORDINATOR_KINDS = List.of(QueueKind.WAKEUP, QueueKind.TIMER);
    private static final int COORDINATOR_BATCH = 32;
    private static final int TASK_MAX = 4;
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Inject
    QueueRepository queue;


    @Inject

    TaskClaim claim;

    @Inject
    TierWeights weights;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    Clock clock;

    private final int timers = intProperty("bench.timers.count", 1_000_000);
    private final int claims = intProperty("bench.timers.claims", 500);
    private final int warmup = intProperty("bench.timers.warmup", 200);
    private final Path out = Path.of(System.getProperty("bench.out", "target/bench/timers.properties"));

    private final BenchFigures figures = new BenchFigures(out);

    @Test
    void timers() throws Exception {
        Files.deleteIfExists(out);
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
            figures.put("claims_per_state", claims);
            figures.put("warmup_claims", warmup);
            figures.put("due_per_claim", "coordinator:2_wakeup+2_timer,task:4_in_4_flows");
            figures.put("queue_rows_before", count("SELECT count(*) FROM eec_queue_item"));

            Timings empty = measure("empty_before");
            report("empty_before", empty);

            long started = System.nanoTime();
            try (Connection connection = dataSource.getConnection(); PreparedStatement insert = connection.prepareStatement("""
                    INSERT INTO eec_queue_item (kind, tenant, tier, run_id, node_id, task_key, available_at, created_at)
                    SELECT 'TIMER', ?, 'standard', gen_random_uuid(), 'wait', 'bench-timer:' || g,
                           now() + interval '1 day' + g * interval '1 second', now()
                      FROM generate_series(1, ?) AS g""")) {
                connection.setAutoCommit(true);
                insert.setString(1, TENANT);
                insert.setInt(2, timers);
                insert.executeUpdate();
            }
            figures.put("timers_insert_s", fixed((System.nanoTime() - started) / 1e9, 1));
            started = System.nanoTime();
            execute("ANALYZE eec_queue_item");
            figures.put("timers_analyze_s", fixed((System.nanoTime() - started) / 1e9, 1));
            figures.put("queue_rows_1m", count("SELECT count(*) FROM eec_queue_item"));
            figures.put("claim_index_mb_1m", fixed(count("SELECT pg_relation_size('ix_queue_item_claim')") / 1048576.0, 1));
            figures.put("fair_index_kb_1m", fixed(count("SELECT pg_relation_size('ix_queue_item_fair_tasks')") / 1024.0, 1));

            Timings million = measure("1m");
            report("1m", million);

            started = System.nanoTime();
            execute("DELETE FROM eec_queue_item WHERE tenant = '" + TENANT + "' AND kind = 'TIMER' AND task_key LIKE 'bench-timer:%'");
            figures.put("timers_delete_s", fixed((System.nanoTime() - started) / 1e9, 1));
            started = System.nanoTime();
            execute("VACUUM ANALYZE eec_queue_item");
            figures.put("vacuum_s", fixed((System.nanoTime() - started) / 1e9, 1));
            figures.put("queue_rows_after", count("SELECT count(*) FROM eec_queue_item"));
            Timings after = measure("empty_after");
            report("empty_after", after);

            // Empty = both empty phases together: they bracket the 1M phase in time, so a drift of the machine
            // (load, JIT) over the run does not show up as an effect of the timers.
            Timings bothEmpty = empty.and(after);
            double a = percentile(bothEmpty.coordinator(), 0.50);
            double b = percentile(million.coordinator(), 0.50);
            double ta = percentile(bothEmpty.task(), 0.50);
            double tb = percentile(million.task(), 0.50);
            figures.put("task_claim_ms_empty", fixed(ta, 3));
            figures.put("task_claim_ms_1m", fixed(tb, 3));
            figures.put("task_ratio", fixed(tb / ta, 2));
            figures.put("claim_ms_empty", fixed(a, 3));
            figures.put("claim_ms_1m", fixed(b, 3));
            figures.put("ratio", fixed(b / a, 2));
        } finally {
            try {
                execute("DELETE FROM eec_queue_item WHERE tenant IN ('" + TENANT + "', '" + TENANT_B + "')");
            } finally {
                figures.write();
            }
        }
    }

    private void report(String state, Timings timings) {
        figures.put("claim_" + state + "_p50_ms", fixed(percentile(timings.coordinator(), 0.50), 3));
        figures.put("claim_" + state + "_p99_ms", fixed(percentile(timings.coordinator(), 0.99), 3));
        figures.put("claim_" + state + "_mean_ms", fixed(BenchFigures.mean(timings.coordinator()), 3));
        figures.put("task_claim_" + state + "_p50_ms", fixed(percentile(timings.task(), 0.50), 3));
        figures.put("task_claim_" + state + "_p99_ms", fixed(percentile(timings.task(), 0.99), 3));
        figures.put("task_claim_" + state + "_mean_ms", fixed(BenchFigures.mean(timings.task()), 3));
        figures.put("check_" + state, timings.wrong == 0 ? "ok" : "MISMATCH(" + timings.wrong + "_claims_without_their_4_items)");
        figures.put("load1_" + state, fixed(timings.load, 2));
    }

    private record Timings(List<Double> coordinatorMs, List<Double> taskMs, int wrong, double load) {
        Timings and(Timings other) {
            List<Double> coordinator = new ArrayList<>(coordinatorMs);
            coordinator.addAll(other.coordinatorMs);
            List<Double> task = new ArrayList<>(taskMs);
            task.addAll(other.taskMs);
            return new Timings(coordinator, task, wrong + other.wrong, (load + other.load) / 2);
        }

        double[] coordinator() {
            return coordinatorMs.stream().mapToDouble(Double::doubleValue).toArray();
        }

        double[] task() {
            return taskMs.stream().mapToDouble(Double::doubleValue).toArray();
        }
    }

    /** {@code warmup} untimed then {@code claims} timed iterations of: enqueue the due handful, claim, claim, ack. */
    private Timings measure(String state) {
        List<Double> coordinator = new ArrayList<>();
        List<Double> task = new ArrayList<>();
        int wrong = 0;
        double load = BenchFigures.load1();
        for (int i = 0; i < warmup + claims; i++) {
            QuarkusTransaction.requiringNew().run(() -> {
                Instant due = clock.instant().minusSeconds(1);
                List<NewQueueItem> items = new ArrayList<>();
                items.add(NewQueueItem.wakeup(TENANT, "standard", UUID.randomUUID(), due));
                items.add(NewQueueItem.wakeup(TENANT, "standard", UUID.randomUUID(), due));
                items.add(NewQueueItem.timer(TENANT, "standard", UUID.randomUUID(), "wait", due));
                items.add(NewQueueItem.timer(TENANT, "standard", UUID.randomUUID(), "wait", due));
                for (String tier : List.of("interactive", "standard")) {
                    for (String tenant : List.of(TENANT, TENANT_B)) {
                        items.add(NewQueueItem.task(tenant, tier, UUID.randomUUID(), "step", 1, HANDLER, null, "{}", due));
                    }
                }
                queue.enqueue(items, clock.instant());
            });
            // Alternate the order, so neither claim always runs right after the inserts.
            boolean coordinatorFirst = i % 2 == 0;
            double[] ms = new double[2];
            List<QueueItem> claimed = new ArrayList<>();
            for (int k = 0; k < 2; k++) {
                boolean coordinatorClaim = coordinatorFirst == (k == 0);
                long started = System.nanoTime();
                List<QueueItem> got = coordinatorClaim
                        ? QuarkusTransaction.requiringNew().call(() -> queue.claim(COORDINATOR_KINDS, "bench", COORDINATOR_BATCH,
                                LEASE, clock.instant()))
                        : QuarkusTransaction.requiringNew().call(() -> claim.claimTasks(Set.of(HANDLER), null, null, "bench",
                                TASK_MAX, LEASE, clock.instant(), weights));
                ms[coordinatorClaim ? 0 : 1] = (System.nanoTime() - started) / 1e6;
                if (got.size() != 4) {
                    wrong++;
                }
                claimed.addAll(got);
            }
            QuarkusTransaction.requiringNew().run(() -> claimed.forEach(item -> queue.ack(item.id(), item.leaseToken())));
            if (i >= warmup) {
                coordinator.add(ms[0]);
                task.add(ms[1]);
            }
        }
        // Anything a wrong claim left behind must not leak into the next state.
        execute("DELETE FROM eec_queue_item WHERE tenant IN ('" + TENANT + "', '" + TENANT_B + "') AND available_at < now() + interval '1 hour'");
        return new Timings(coordinator, task, wrong, load);
    }

    private long count(String sql) throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void execute(String sql) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            statement.execute(sql);
        } catch (Exception e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
