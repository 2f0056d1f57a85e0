package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.net.URI;
import java.net.http.HttpRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A pool's capacity holds across the fleet: three real Ductor JVMs (the packaged {@code quarkus-run.jar}, eight
 * in-process worker threads each) on one real PostgreSQL compete for the pooled {@code sleep} tasks of many runs,
 * and never lease more of them at once than the pool allows, while keeping it full.
 *
 * <p>The pool starts paused: while it is, no pod leases any of its tasks. It is then resumed through another pod,
 * and from then on its leases are measured two ways:
 * <ul>
 * <li>sampled: the committed count of leased tasks of the pool, by SQL every {@value #SAMPLE_MS} ms for the whole
 *     run phase;</li>
 * <li>exactly: a trigger the test adds to {@code eec_queue_item} logs, with {@code clock_timestamp()}, the moment
 *     each task of the pool is leased (in the claim's statement, which runs after the claim took the pool's lock)
 *     and released (completed, given back or reaped). The peak of overlapping [leased, released) intervals is the
 *     true peak concurrency: every lease that overlaps a claim's instant was committed before that claim took the
 *     lock, so the claim counted it.</li>
 * </ul>
 * Both peaks must be at most the capacity, the exact one must reach it (the pool was saturated), the pods must
 * have shared the pool, and every run must succeed.
 *
 * <p>Alone: {@code ./mvnw verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=PoolCapacityIT}.
 */
@Tag("it")
class PoolCapacityIT {

    private static final String SUITE = "PoolCapacityIT";
    private static final int PODS = 3;
    private static final int CAPACITY = Integer.getInteger("ductor.it.pool-capacity", 3);
    private static final int RUNS = Integer.getInteger("ductor.it.pool-runs", 40);
    private static final int SLEEP_MS = Integer.getInteger("ductor.it.pool-sleep-ms", 300);
    private static final int SAMPLE_MS = 20;
    private static final Duration PAUSED_FOR = Duration.ofMillis(1500);
    private static final Duration RUNS_TIMEOUT = Duration.ofSeconds(180);
    private static final String TENANT = "demo"; // the dev tokens' tenant
    private static final String POOL = "gpu";
    private static final String WORKFLOW = "pooled-pair";
    /** Two pooled sleeps side by side, then an unpooled noop: two tasks of the pool per run, in parallel. */
    private static final String DEFINITION = """
            {"nodes": [
              {"id": "a", "type": "task", "handler": "sleep", "input": {"ms": %1$d}, "pool": "%2$s"},
              {"id": "b", "type": "task", "handler": "sleep", "input": {"ms": %1$d}, "pool": "%2$s"},
              {"id": "c", "type": "task", "handler": "noop", "dependsOn": ["a", "b"]}]}""".formatted(SLEEP_MS, POOL);
    private static final String LEASE_LOG = """
            CREATE TABLE it_pool_lease_log (
                id      bigserial   PRIMARY KEY,
                task_id bigint      NOT NULL,
                owner   text,
                event   text        NOT NULL,
                at      timestamptz NOT NULL);
            CREATE FUNCTION it_log_pool_lease() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'UPDATE' THEN
                    IF OLD.lease_token IS NULL AND NEW.lease_token IS NOT NULL THEN
                        INSERT INTO it_pool_lease_log (task_id, owner, event, at) VALUES (NEW.id, NEW.lease_owner, 'leased', clock_timestamp());
                    ELSIF OLD.lease_token IS NOT NULL AND NEW.lease_token IS NULL THEN
                        INSERT INTO it_pool_lease_log (task_id, owner, event, at) VALUES (OLD.id, OLD.lease_owner, 'released', clock_timestamp());
                    ELSIF OLD.lease_token IS DISTINCT FROM NEW.lease_token THEN
                        INSERT INTO it_pool_lease_log (task_id, owner, event, at) VALUES (OLD.id, NEW.lease_owner, 'released', clock_timestamp());
                        INSERT INTO it_pool_lease_log (task_id, owner, event, at) VALUES (NEW.id, NEW.lease_owner, 'leased', clock_timestamp());
                    END IF;
                    RETURN NEW;
                END IF;
                IF OLD.lease_token IS NOT NULL THEN
                    INSERT INTO it_pool_lease_log (task_id, owner, event, at) VALUES (OLD.id, OLD.lease_owner, 'released', clock_timestamp());
                END IF;
                RETURN OLD;
            END $$;
            CREATE TRIGGER it_pool_lease_log AFTER UPDATE OR DELETE ON eec_queue_item
                FOR EACH ROW WHEN (OLD.kind = 'TASK' AND OLD.pool = 'gpu') EXECUTE FUNCTION it_log_pool_lease();""";

    private static ItPostgres pg;
    private static Sql db;
    private static Pods pods;
    private static final List<PodProcess> fleet = new ArrayList<>();
    private static long suiteStarted;

    @BeforeAll
    static void startPostgresAndPods() throws Exception {
        suiteStarted = System.nanoTime();
        pg = ItPostgres.start(false);
        db = pg.sql();
        Pods.deleteOldLogs(Pods.workDir("pool-capacity-it"));
        pods = new Pods(SUITE, Pods.workDir("pool-capacity-it"), pg.jdbcUrl());
        fleet.add(pods.launch("pod-1"));
        pods.awaitReady(fleet.get(0)); // it migrates the schema alone
        for (int i = 2; i <= PODS; i++) {
            fleet.add(pods.launch("pod-" + i));
        }
        for (PodProcess pod : fleet.subList(1, PODS)) {
            pods.awaitReady(pod);
        }
        try (Connection c = db.dataSource().getConnection()) {
            c.createStatement().execute(LEASE_LOG);
        }
        log("pods ready after " + Pods.seconds(System.nanoTime() - suiteStarted) + " s: " + fleet);
    }

    @AfterAll
    static void stopPodsAndPostgres() {
        if (pods != null) {
            pods.close();
        }
        if (pg != null) {
            pg.close();
        }
        log("pods and PostgreSQL stopped; whole IT took " + Pods.seconds(System.nanoTime() - suiteStarted) + " s");
    }

    @Test
    void aPoolNeverLeasesMoreThanItsCapacityAcrossThreePodsAndIsKeptFull() throws Exception {
        String admin = pods.token("admin");
        String client = pods.token("client");
        HttpResponse<String> created = ItHttp.put(fleet.get(0), "/api/v1/pools/" + POOL, admin,
                "{\"capacity\": " + CAPACITY + ", \"paused\": true}");
        ItHttp.expect(201, created, "defining the pool, paused, on pod-1");
        String etag = created.headers().firstValue("ETag").orElseThrow();
        ItHttp.expect(201, ItHttp.put(fleet.get(1), "/api/v1/workflows/" + WORKFLOW, admin, DEFINITION), "defining the workflow");

        List<String> runIds = new ArrayList<>();
        for (int k = 0; k < RUNS; k++) {
            JsonNode run = ItHttp.expect(201, ItHttp.post(fleet.get(k % PODS), "/api/v1/workflows/" + WORKFLOW + "/runs", client,
                    "{\"input\": {}, \"idempotencyKey\": \"pool-" + k + "\"}"), "starting run " + k);
            runIds.add(run.path("runId").asText());
        }

        // Paused: every pod's workers poll, none may lease a task of the pool.
        Thread.sleep(PAUSED_FOR.toMillis());
        long queuedWhilePaused = db.single("SELECT count(*) FROM eec_queue_item WHERE kind = 'TASK' AND pool = ?", POOL);
        long leasedWhilePaused = db.single("SELECT count(*) FROM it_pool_lease_log");
        assertEquals(0, leasedWhilePaused, "tasks of the paused pool were leased: "
                + db.rows("SELECT * FROM it_pool_lease_log ORDER BY id LIMIT 10"));
        assertTrue(queuedWhilePaused > 0, "no pooled task was queued while the pool was paused");
        log("paused for " + PAUSED_FOR.toMillis() + " ms: " + queuedWhilePaused + " pooled tasks queued, none leased");

        Sampler sampler = new Sampler();
        Thread sampling = new Thread(sampler, "pool-lease-sampler");
        sampling.setDaemon(true);
        sampling.start();
        long resumed = System.nanoTime();
        try {
            ItHttp.expect(200, send(fleet.get(2), "/api/v1/pools/" + POOL, admin, etag,
                    "{\"capacity\": " + CAPACITY + ", \"paused\": false}"), "resuming the pool on pod-3");
            awaitRunsFinished();
        } finally {
            sampler.running.set(false);
            sampling.join(5_000);
        }
        double runPhase = Pods.seconds(System.nanoTime() - resumed);

        List<String> problems = new ArrayList<>();
        if (sampler.error != null) {
            problems.add("the sampler failed: " + sampler.error);
        }
        Map<String, Long> byStatus = db.countBy("SELECT status, count(*) FROM eec_workflow_run GROUP BY status");
        if (byStatus.getOrDefault("SUCCEEDED", 0L) != RUNS || byStatus.size() != 1) {
            problems.add("expected all " + RUNS + " runs SUCCEEDED, found " + byStatus);
        }
        Intervals intervals = intervals();
        long pooledTasks = 2L * RUNS;
        System.out.printf("PoolCapacityIT summary: capacity=%d pods=%d runs=%d pooledTasks=%d sleep=%dms"
                        + " leaseIntervalPeak=%d sampledPeak=%d samples=%d samplesAtCapacity=%d maxPodsHoldingAtOnce=%d"
                        + " leasesPerPod=%s poolBusy=%.0f%% meanLease=%.0fms runPhase=%.1fs (ideal %.1fs)%n",
                CAPACITY, PODS, RUNS, pooledTasks, SLEEP_MS, intervals.peak, sampler.peak.get(), sampler.samples.get(),
                sampler.atCapacity.get(), sampler.podsAtOnce.get(), intervals.perOwner, 100 * intervals.busy,
                intervals.meanLeaseMs, runPhase,
                pooledTasks * SLEEP_MS / 1000.0 / CAPACITY);

        if (intervals.peak > CAPACITY) {
            problems.add("lease intervals overlapped " + intervals.peak + " deep, over the capacity " + CAPACITY
                    + ", around " + intervals.peakAt);
        }
        if (sampler.peak.get() > CAPACITY) {
            problems.add("a sample saw " + sampler.peak.get() + " leased tasks of the pool, over the capacity " + CAPACITY);
        }
        if (intervals.peak != CAPACITY) {
            problems.add("the pool was never saturated: lease intervals peaked at " + intervals.peak + " of " + CAPACITY);
        }
        if (sampler.samples.get() < 100) {
            problems.add("only " + sampler.samples.get() + " samples: the sampling did not cover the run phase");
        }
        if (intervals.leases != pooledTasks || intervals.unreleased != 0) {
            problems.add("expected " + pooledTasks + " leases of the pool, each released; found " + intervals.leases
                    + " leases, " + intervals.unreleased + " never released");
        }
        if (intervals.perOwner.size() < 2) {
            problems.add("only " + intervals.perOwner.keySet() + " leased the pool's tasks: the pods did not compete");
        }
        if (!problems.isEmpty()) {
            fail(problems.size() + " problem(s):\n - " + String.join("\n - ", problems) + pods.logTails(30));
        }
    }

    /** Counts the committed leases of the pool every {@value #SAMPLE_MS} ms, on one connection. */
    private static final class Sampler implements Runnable {
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong peak = new AtomicLong();
        final AtomicLong samples = new AtomicLong();
        final AtomicLong atCapacity = new AtomicLong();
        final AtomicLong podsAtOnce = new AtomicLong();
        volatile Throwable error;

        @Override
        public void run() {
            try (Connection c = db.dataSource().getConnection(); PreparedStatement count = c.prepareStatement("""
                    SELECT count(*), count(DISTINCT lease_owner) FROM eec_queue_item
                     WHERE kind = 'TASK' AND lease_token IS NOT NULL AND tenant = ? AND pool = ?""")) {
                count.setString(1, TENANT);
                count.setString(2, POOL);
                while (running.get()) {
                    try (ResultSet rs = count.executeQuery()) {
                        rs.next();
                        long leased = rs.getLong(1);
                        peak.accumulateAndGet(leased, Math::max);
                        podsAtOnce.accumulateAndGet(rs.getLong(2), Math::max);
                        if (leased == CAPACITY) {
                            atCapacity.incrementAndGet();
                        }
                        samples.incrementAndGet();
                    }
                    Thread.sleep(SAMPLE_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable e) {
                error = e;
            }
        }
    }

    /**
     * The sweep's findings; {@code busy} is the share of capacity x [first lease, last release] that leases
     * filled, {@code meanLeaseMs} how long a lease lasted (the sleep plus claiming and reporting).
     */
    private record Intervals(int peak, String peakAt, long leases, long unreleased, Map<String, Long> perOwner,
                             double busy, double meanLeaseMs) {
    }

    /**
     * The deepest overlap of the logged [leased, released) intervals, by a sweep in time order; at equal times a
     * release counts before a lease (a release the claim saw committed happened strictly before it).
     */
    private static Intervals intervals() throws Exception {
        List<Map<String, String>> events = db.maps("""
                SELECT task_id, owner, event, at, (extract(epoch FROM at) * 1000)::float8 AS ms FROM it_pool_lease_log
                 ORDER BY at, CASE event WHEN 'released' THEN 0 ELSE 1 END, id""");
        int depth = 0;
        int peak = 0;
        String peakAt = null;
        long leases = 0;
        Map<String, Long> perOwner = new TreeMap<>();
        Map<String, Integer> open = new TreeMap<>();
        Map<String, Double> since = new TreeMap<>();
        double leasedMs = 0;
        for (Map<String, String> event : events) {
            String task = event.get("task_id");
            double ms = Double.parseDouble(event.get("ms"));
            if ("leased".equals(event.get("event"))) {
                since.put(task, ms);
                leases++;
                perOwner.merge(event.get("owner"), 1L, Long::sum);
                open.merge(task, 1, Integer::sum);
                depth++;
                if (depth > peak) {
                    peak = depth;
                    peakAt = event.get("at");
                }
            } else if (open.getOrDefault(task, 0) > 0) {
                open.merge(task, -1, Integer::sum);
                leasedMs += ms - since.get(task);
                depth--;
            }
        }
        long unreleased = open.values().stream().mapToLong(Integer::longValue).sum();
        double span = events.isEmpty() ? 0 : Double.parseDouble(events.get(events.size() - 1).get("ms"))
                - Double.parseDouble(events.get(0).get("ms"));
        return new Intervals(peak, peakAt, leases, unreleased, perOwner, span == 0 ? 0 : leasedMs / (CAPACITY * span),
                leases == 0 ? 0 : leasedMs / leases);
    }

    private static void awaitRunsFinished() throws Exception {
        long deadline = System.nanoTime() + RUNS_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (db.single("SELECT count(*) FROM eec_workflow_run WHERE status = 'RUNNING'") == 0) {
                return;
            }
            Thread.sleep(100);
        }
        fail("runs still RUNNING after " + RUNS_TIMEOUT + ": "
                + db.countBy("SELECT status, count(*) FROM eec_workflow_run GROUP BY status") + pods.logTails(30));
    }

    private static HttpResponse<String> send(PodProcess pod, String path, String token, String ifMatch, String body)
            throws Exception {
        return ItHttp.send(HttpRequest.newBuilder(URI.create(pod.url(path)))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .header("If-Match", ifMatch)
                .PUT(HttpRequest.BodyPublishers.ofString(body)));
    }

    private static void log(String message) {
        System.out.println("[" + SUITE + "] " + message);
    }
}
