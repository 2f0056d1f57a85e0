package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Three real Ductor JVMs (the packaged {@code quarkus-run.jar}) on one real PostgreSQL, all ticking the same
 * runs at once: a fan-out/fan-in DAG started 200+ times over HTTP across the pods while the test floods
 * redundant coordinator wakeups straight into the queue. Every run must end SUCCEEDED with a gap-free
 * history, no node attempt may be dispatched or executed twice (the http steps call a ledger in this JVM that counts
 * them), the queue must drain, and every version bump must be exactly one committed
 * tick as the pods' own metrics count them; the version conflicts this provokes must show in the metrics,
 * and none of them as an error.
 *
 * <p>Then, on the same pods ({@link #threePodsRacingOnOneFanOutApplyEachItemOnce}), one run whose single node fans out
 * over {@value #FAN_OUT} items with no concurrency bound: every item is dispatched by one commit, the three pods'
 * workers run them together and their results race into the one run.
 *
 * <p>The checks of the first case count every run in the database, so it runs first ({@link Order}).
 *
 * <p>Run by failsafe after {@code package}: {@code ./mvnw verify}, or alone with
 * {@code ./mvnw verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=MultiPodCoordinationIT}.
 */
@Tag("it")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiPodCoordinationIT {

    private static final int PODS = 3;
    private static final int RUNS = Integer.getInteger("ductor.it.runs", 210);
    /** Redundant wakeups per live run per flood round. */
    private static final int WAKEUPS_PER_RUN = Integer.getInteger("ductor.it.wakeups-per-run", 8);
    /** Flood rounds go on while runs are live, every {@link #FLOOD_PAUSE}; this only bounds them. */
    private static final int MAX_FLOOD_ROUNDS = Integer.getInteger("ductor.it.flood-rounds", 1000);
    private static final Duration FLOOD_PAUSE = Duration.ofMillis(Long.getLong("ductor.it.flood-pause-ms", 50));
    /**
     * A new round only while fewer wakeups than this are queued: the flood keeps every coordinator loop busy
     * with redundant ticks without burying the wakeups that carry progress under a backlog that only grows.
     */
    private static final int FLOOD_BACKLOG_LIMIT = Integer.getInteger("ductor.it.flood-backlog", 400);
    /** The coordinator's claim batch: copies of one run are spread one batch apart, so different claims tick it. */
    private static final int CLAIM_BATCH = 32;
    private static final Duration RUNS_TERMINAL_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration QUEUE_DRAIN_TIMEOUT = Duration.ofSeconds(60);
    private static final String WORKFLOW = "fanin6";
    private static final List<String> NODES = List.of("a", "b", "c", "d", "e", "f");
    /** seq 1 "started", PENDING->RUNNING and RUNNING->SUCCEEDED per node, the run's RUNNING->SUCCEEDED. */
    private static final int TRANSITIONS_PER_RUN = 1 + 2 * NODES.size() + 1;
    /** The nodes whose handler is {@code http} to the {@link StepLedger}, so that their executions are counted. */
    private static final List<String> COUNTED = List.of("b", "c", "d", "f");

    /** a and e are noop steps (the in-process fast path), the fan-out b, c, d and the last step f call the ledger. */
    private static String definition() {
        String call = ledger.input("ok");
        return """
            {"nodes": [
              {"id": "a", "type": "task", "handler": "noop"},
              {"id": "b", "type": "task", "handler": "http", "input": %1$s, "dependsOn": ["a"]},
              {"id": "c", "type": "task", "handler": "http", "input": %1$s, "dependsOn": ["a"]},
              {"id": "d", "type": "task", "handler": "http", "input": %1$s, "dependsOn": ["a"]},
              {"id": "e", "type": "task", "handler": "noop", "dependsOn": ["b", "c", "d"]},
              {"id": "f", "type": "task", "handler": "http", "input": %1$s, "dependsOn": ["e"]}]}""".formatted(call);
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static final List<PodProcess> pods = new ArrayList<>();
    private static ItPostgres postgres;
    private static StepLedger ledger;
    private static DataSource db;
    private static Path workDir;
    private static Pods launcher;
    private static long suiteStarted;
    /** The most runs that were live in one flood round. */
    private static final AtomicLong peakLiveRuns = new AtomicLong();

    @BeforeAll
    static void startPostgresAndPods() throws Exception {
        suiteStarted = System.nanoTime();
        workDir = Pods.workDir(null);
        Pods.deleteOldLogs(workDir);
        ledger = new StepLedger();
        postgres = ItPostgres.start(false);
        db = postgres.sql().dataSource();
        String jdbcUrl = postgres.jdbcUrl();
        log("PostgreSQL up at " + jdbcUrl + " (data " + postgres.dataDir() + ")");
        launcher = new Pods("MultiPodCoordinationIT", workDir, jdbcUrl);

        // The first pod migrates the schema alone; the other two then start together on the migrated database.
        pods.add(launcher.launch("pod-1"));
        launcher.awaitReady(pods.get(0));
        for (int i = 2; i <= PODS; i++) {
            pods.add(launcher.launch("pod-" + i));
        }
        for (PodProcess pod : pods.subList(1, PODS)) {
            launcher.awaitReady(pod);
        }
        log("pods ready after " + seconds(System.nanoTime() - suiteStarted) + " s: "
                + pods.stream().map(p -> p.name() + "@" + p.port()).toList());
    }

    @AfterAll
    static void stopPodsAndPostgres() {
        if (launcher != null) {
            launcher.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        if (ledger != null) {
            ledger.close();
        }
        log("pods and PostgreSQL stopped; whole IT took " + seconds(System.nanoTime() - suiteStarted) + " s");
    }

    @Test
    @Order(1)
    void threePodsTickingTheSameRunsCommitEachStepExactlyOnce() throws Exception {
        String admin = token("admin");
        String client = token("client");

        HttpResponse<String> defined = send(HttpRequest.newBuilder(URI.create(pods.get(0).url("/api/v1/workflows/" + WORKFLOW)))
                .header("Authorization", "Bearer " + admin)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(definition())));
        assertEquals(201, defined.statusCode(), "defining the workflow: " + defined.body());

        long runPhaseStarted = System.nanoTime();
        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicLong flooded = new AtomicLong();
        AtomicLong floodRounds = new AtomicLong();
        List<Throwable> floodErrors = new ArrayList<>();
        Thread flood = new Thread(() -> floodWakeups(flooding, flooded, floodRounds, floodErrors), "wakeup-flood");
        flood.setDaemon(true);
        flood.start();

        List<String> runIds;
        try {
            runIds = startRuns(client);
            awaitAllTerminal(runIds.size());
        } finally {
            flooding.set(false);
            flood.join(30_000);
        }
        double runPhase = seconds(System.nanoTime() - runPhaseStarted);
        assertTrue(floodErrors.isEmpty(), "flooding wakeups failed: " + floodErrors);
        long leftInQueue = awaitQueueDrained();

        Map<String, Long> versions = versionFigures();
        long versionSum = versions.get("sum");
        List<Map<String, Double>> scraped = scrapeUntilSettled(versionSum);
        double committed = total(scraped, "ductor_tick_total", "committed");
        double conflicts = total(scraped, "ductor_tick_total", "conflict");
        double noops = total(scraped, "ductor_tick_total", "noop");
        double errors = total(scraped, "ductor_tick_total", "error");
        double retries = total(scraped, "ductor_tick_retries_total", null);
        double requeues = total(scraped, "ductor_requeues_total", null);
        double forced = total(scraped, "ductor_forced_failures_total", null);

        System.out.printf("MultiPodCoordinationIT summary: runs=%d commits=%.0f versionSum=%d conflicts=%.0f noops=%.0f"
                        + " errors=%.0f retries=%.0f requeues=%.0f forcedFailures=%.0f wakeupsFlooded=%d floodRounds=%d"
                        + " peakLiveRuns=%d commitsPerPod=%s queueLeft=%d runPhase=%.1fs wall=%.1fs%n",
                runIds.size(), committed, versionSum, conflicts, noops, errors, retries, requeues, forced, flooded.get(),
                floodRounds.get(), peakLiveRuns.get(), perPod(scraped, "committed"), leftInQueue, runPhase,
                seconds(System.nanoTime() - suiteStarted));

        List<String> problems = new ArrayList<>();
        problems.addAll(checkRunsSucceeded(runIds.size()));
        problems.addAll(checkHistory());
        problems.addAll(checkDispatchedOnce(runIds.size()));
        problems.addAll(checkExecutedOnce(runIds.size()));
        problems.addAll(checkInbox(runIds.size()));
        if (leftInQueue != 0) {
            problems.add("the queue did not drain within " + QUEUE_DRAIN_TIMEOUT + " after every run ended: " + leftInQueue
                    + " item(s) left");
        }
        problems.addAll(missingMetrics(scraped));
        if (committed != versionSum) {
            problems.add("sum of db_record_version (" + versionSum + ") != committed ticks on the pods (" + committed
                    + ", per pod " + perPod(scraped, "committed") + "): a version bump without a metered commit, or a"
                    + " metered commit that bumped nothing");
        }
        if (!(conflicts > 0)) {
            problems.add("no version conflict was metered although " + flooded.get() + " redundant wakeups were flooded"
                    + " across " + PODS + " pods: the test did not make pods race (or conflicts are not counted)");
        }
        if (errors != 0) {
            problems.add("ductor_tick_total{outcome=\"error\"} = " + errors + " (a conflict must never count as an error)");
        }
        if (forced != 0) {
            problems.add("ductor_forced_failures_total = " + forced + " (no run may be force-failed here)");
        }
        for (int i = 0; i < PODS; i++) {
            if (!(value(scraped.get(i), "ductor_tick_total", "committed") > 0)) {
                problems.add(pods.get(i).name() + " committed no tick: the pods did not share the work");
            }
        }
        if (!problems.isEmpty()) {
            fail(problems.size() + " invariant(s) broken:\n - " + String.join("\n - ", problems) + podLogTails(40));
        }
    }

    /** Items of the fan-out case: all dispatched at once, their results committed by three pods together. */
    private static final int FAN_OUT = 200;
    private static final String FAN_OUT_WORKFLOW = "fanrace";
    private static final Pattern ITEM_NODE = Pattern.compile("^pick\\[(\\d+)]$");

    /**
     * One run, one node {@code pick} fanning out over {@value #FAN_OUT} items (handler {@code sleep}, item input
     * {@code {"ms": 100 + index}}, no maxConcurrency): the commit that starts it dispatches every item, the three pods'
     * workers run them (40 s of sleeping in all, 5 s for one pod's 8 worker threads: the other pods' pollers claim their
     * share meanwhile, even on a loaded host, where instant echo items were once all run by the pod that dispatched them) and their results reach the run together, so the pods' ticks race on it. At the end the run SUCCEEDED,
     * the node's output lists the items' outputs in order, every item SUCCEEDED on its first attempt (or the history
     * says a lease was lost), and the history is gap-free with exactly one RUNNING->SUCCEEDED per item.
     */
    @Test
    @Order(2)
    void threePodsRacingOnOneFanOutApplyEachItemOnce() throws Exception {
        String admin = token("admin");
        String client = token("client");
        String definition = """
            {"nodes": [{"id": "pick", "type": "task", "handler": "sleep", "forEach": "input.items",
                        "input": {"ms": "${{ 100 + index }}"}}]}""";
        HttpResponse<String> defined = send(HttpRequest.newBuilder(URI.create(pods.get(0).url("/api/v1/workflows/" + FAN_OUT_WORKFLOW)))
                .header("Authorization", "Bearer " + admin)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(definition)));
        assertEquals(201, defined.statusCode(), "defining the workflow: " + defined.body());

        List<Map<String, Double>> before = new ArrayList<>();
        for (PodProcess pod : pods) {
            before.add(scrape(pod));
        }
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < FAN_OUT; i++) {
            items.append(i == 0 ? "" : ",").append(i);
        }
        long started = System.nanoTime();
        HttpResponse<String> start = send(HttpRequest.newBuilder(URI.create(pods.get(1).url("/api/v1/workflows/" + FAN_OUT_WORKFLOW + "/runs")))
                .header("Authorization", "Bearer " + client)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"input\": {\"items\": [" + items + "]}, \"idempotencyKey\": \"fanrace-1\"}")));
        assertEquals(201, start.statusCode(), "starting the fan-out run: " + start.body());
        String runId = JSON.readTree(start.body()).path("runId").asText();

        long deadline = System.nanoTime() + RUNS_TERMINAL_TIMEOUT.toNanos();
        String status = "RUNNING";
        while (System.nanoTime() < deadline) {
            status = rows("SELECT status FROM eec_workflow_run WHERE run_id = '" + runId + "'").get(0);
            if (!status.contains("RUNNING")) {
                break;
            }
            Thread.sleep(100);
        }
        double took = seconds(System.nanoTime() - started);

        List<String> problems = new ArrayList<>();
        JsonNode run = JSON.readTree(send(HttpRequest.newBuilder(URI.create(pods.get(2).url("/api/v1/runs/" + runId)))
                .header("Authorization", "Bearer " + client).GET()).body());
        List<JsonNode> history = fetchHistory(runId, client);

        List<Map<String, Double>> after = new ArrayList<>();
        for (PodProcess pod : pods) {
            after.add(scrape(pod));
        }
        List<String> commitsPerPod = new ArrayList<>();
        int podsCommitting = 0;
        for (int i = 0; i < PODS; i++) {
            long committed = Math.round(value(after.get(i), "ductor_tick_total", "committed")
                    - value(before.get(i), "ductor_tick_total", "committed"));
            long conflicts = Math.round(value(after.get(i), "ductor_tick_total", "conflict")
                    - value(before.get(i), "ductor_tick_total", "conflict"));
            commitsPerPod.add(pods.get(i).name() + ":" + committed + "/" + conflicts);
            if (committed > 0) {
                podsCommitting++;
            }
        }
        System.out.printf("MultiPodCoordinationIT fan-out summary: items=%d status=%s took=%.1fs transitions=%d"
                + " commits/conflicts per pod=%s version=%s%n", FAN_OUT, run.path("status").asText(), took, history.size(),
                commitsPerPod, run.path("version").asText());

        if (!"SUCCEEDED".equals(run.path("status").asText())) {
            problems.add("the fan-out run is " + run.path("status").asText() + " after " + took + " s (db: " + status + ")");
        }
        JsonNode pick = run.path("nodes").path("pick");
        JsonNode output = pick.path("output");
        if (!output.isArray() || output.size() != FAN_OUT) {
            problems.add("node pick's output is not a list of " + FAN_OUT + " entries: " + abbreviate(output));
        } else {
            for (int i = 0; i < FAN_OUT; i++) {
                if (!output.get(i).path("slept").isIntegralNumber() || output.get(i).path("slept").asInt() != 100 + i) {
                    problems.add("node pick's output[" + i + "] is " + output.get(i) + ", not {\"slept\":" + (100 + i) + "}");
                    break;
                }
            }
        }
        if (!run.path("output").path("pick").equals(output)) {
            problems.add("the run's output does not carry pick's output: " + abbreviate(run.path("output")));
        }

        // the history: seq 1..n without gaps; per item exactly one RUNNING->SUCCEEDED, and a redispatch only after a
        // lost lease
        Map<Integer, Integer> succeeded = new HashMap<>();
        Map<Integer, Integer> leaseLost = new HashMap<>();
        for (int k = 0; k < history.size(); k++) {
            JsonNode t = history.get(k);
            if (t.path("seq").asLong() != k + 1) {
                problems.add("history seq not contiguous from 1: entry " + k + " has seq " + t.path("seq").asLong());
                break;
            }
        }
        for (JsonNode t : history) {
            Matcher m = ITEM_NODE.matcher(t.path("node").asText(""));
            if (!m.matches()) {
                continue;
            }
            int index = Integer.parseInt(m.group(1));
            if ("RUNNING".equals(t.path("from").asText()) && "SUCCEEDED".equals(t.path("to").asText())) {
                succeeded.merge(index, 1, Integer::sum);
            }
            if ("RUNNING".equals(t.path("from").asText()) && "RUNNING".equals(t.path("to").asText())
                    && t.path("cause").asText().contains("lease")) {
                leaseLost.merge(index, 1, Integer::sum);
            }
        }
        for (int i = 0; i < FAN_OUT; i++) {
            if (succeeded.getOrDefault(i, 0) != 1) {
                problems.add("pick[" + i + "] has " + succeeded.getOrDefault(i, 0) + " RUNNING->SUCCEEDED transitions, not 1");
            }
        }
        if (succeeded.keySet().stream().anyMatch(i -> i < 0 || i >= FAN_OUT)) {
            problems.add("the history names items outside 0.." + (FAN_OUT - 1) + ": " + succeeded.keySet());
        }

        JsonNode itemStates = pick.path("items");
        if (!itemStates.isArray() || itemStates.size() != FAN_OUT) {
            problems.add("node pick does not show " + FAN_OUT + " items: " + abbreviate(itemStates));
        } else {
            for (int i = 0; i < FAN_OUT; i++) {
                JsonNode item = itemStates.get(i);
                int expectedAttempts = 1 + leaseLost.getOrDefault(i, 0);
                if (!"SUCCEEDED".equals(item.path("state").asText()) || item.path("attempts").asInt() != expectedAttempts) {
                    problems.add("pick[" + i + "] is " + item.path("state").asText() + " after " + item.path("attempts").asInt()
                            + " attempt(s), expected SUCCEEDED after " + expectedAttempts
                            + (leaseLost.containsKey(i) ? " (the history records lost leases)" : ""));
                }
            }
        }
        if (!leaseLost.isEmpty()) {
            log("fan-out items dispatched again after a lost lease (as the history says): " + leaseLost);
        }
        if (podsCommitting < 2) {
            problems.add("only " + podsCommitting + " pod(s) committed ticks during the fan-out (" + commitsPerPod
                    + "): the pods did not race on it");
        }
        if (!problems.isEmpty()) {
            fail(problems.size() + " fan-out invariant(s) broken:\n - "
                    + String.join("\n - ", problems.subList(0, Math.min(20, problems.size()))) + podLogTails(40));
        }
    }

    /** GET /runs/{id}/history, following {@code Link: <...>; rel="next"} should the answer be paged. */
    private static List<JsonNode> fetchHistory(String runId, String token) throws Exception {
        List<JsonNode> entries = new ArrayList<>();
        String url = pods.get(0).url("/api/v1/runs/" + runId + "/history");
        Pattern next = Pattern.compile("<([^>]+)>\\s*;\\s*rel=\"?next\"?");
        for (int page = 0; url != null && page < 1000; page++) {
            HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url))
                    .header("Authorization", "Bearer " + token).GET());
            assertEquals(200, response.statusCode(), "GET " + url + ": " + response.body());
            JsonNode body = JSON.readTree(response.body());
            (body.isArray() ? body : body.path("items")).forEach(entries::add);
            url = null;
            for (String link : response.headers().allValues("Link")) {
                Matcher m = next.matcher(link);
                if (m.find()) {
                    String target = m.group(1);
                    url = target.startsWith("http") ? target : pods.get(0).url(target.startsWith("/") ? target : "/" + target);
                }
            }
        }
        return entries;
    }

    private static String abbreviate(JsonNode node) {
        String text = String.valueOf(node);
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }

    // --- pods ------------------------------------------------------------------------------------------------

    private static String token(String role) throws Exception {
        return launcher.token(role);
    }

    // --- load --------------------------------------------------------------------------------------------------

    /** Starts {@link #RUNS} runs round-robin across the pods, a dozen requests in flight at a time. */
    private static List<String> startRuns(String client) throws Exception {
        Semaphore inFlight = new Semaphore(12);
        List<CompletableFuture<String>> started = new ArrayList<>();
        for (int k = 0; k < RUNS; k++) {
            PodProcess pod = pods.get(k % PODS);
            String body = "{\"input\": {\"k\": " + k + "}, \"idempotencyKey\": \"it-" + k + "\"}";
            HttpRequest request = HttpRequest.newBuilder(URI.create(pod.url("/api/v1/workflows/" + WORKFLOW + "/runs")))
                    .timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + client)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build();
            inFlight.acquire();
            int n = k;
            started.add(HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                    .whenComplete((r, e) -> inFlight.release())
                    .thenApply(response -> {
                        if (response.statusCode() != 201) {
                            throw new AssertionError("starting run " + n + " on " + pod.name() + ": " + response.statusCode()
                                    + " " + response.body());
                        }
                        try {
                            return JSON.readTree(response.body()).path("runId").asText();
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }));
        }
        List<String> ids = new ArrayList<>();
        for (CompletableFuture<String> run : started) {
            ids.add(run.get(60, TimeUnit.SECONDS));
        }
        assertEquals(RUNS, ids.stream().distinct().count(), "every start made a distinct run");
        return ids;
    }

    /**
     * Rounds of {@link #WAKEUPS_PER_RUN} plain wakeups per live run, as a redelivering broker or a burst of
     * signals would cause, for as long as runs are live (a round whenever the backlog is below
     * {@link #FLOOD_BACKLOG_LIMIT}). The copies of a run are ordered one claim batch apart, so consecutive claims (on
     * different pods and threads) pick up the same runs and tick them at the same moment.
     */
    private static void floodWakeups(AtomicBoolean flooding, AtomicLong flooded, AtomicLong rounds, List<Throwable> errors) {
        String sql = """
                INSERT INTO eec_queue_item (kind, tenant, tier, run_id, available_at, created_at)
                SELECT 'WAKEUP', r.tenant, 'standard', r.run_id, now(), now()
                  FROM (SELECT run_id, tenant, row_number() OVER (ORDER BY run_id) - 1 AS rn
                          FROM eec_workflow_run WHERE status = 'RUNNING') r
                 CROSS JOIN generate_series(1, ?) AS g(copy)
                 ORDER BY r.rn / ?, g.copy, r.rn""";
        try (Connection connection = db.getConnection(); PreparedStatement insert = connection.prepareStatement(sql);
             PreparedStatement backlog = connection.prepareStatement("SELECT count(*) FROM eec_queue_item WHERE kind = 'WAKEUP'")) {
            while (flooding.get() && rounds.get() < MAX_FLOOD_ROUNDS) {
                try (ResultSet queued = backlog.executeQuery()) {
                    queued.next();
                    if (queued.getLong(1) >= FLOOD_BACKLOG_LIMIT) {
                        Thread.sleep(FLOOD_PAUSE.toMillis());
                        continue;
                    }
                }
                insert.setInt(1, WAKEUPS_PER_RUN);
                insert.setInt(2, CLAIM_BATCH);
                int inserted = insert.executeUpdate();
                if (inserted > 0) {
                    flooded.addAndGet(inserted);
                    peakLiveRuns.accumulateAndGet(inserted / WAKEUPS_PER_RUN, Math::max);
                    rounds.incrementAndGet();
                }
                Thread.sleep(FLOOD_PAUSE.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            synchronized (errors) {
                errors.add(e);
            }
        }
    }

    private static void awaitAllTerminal(int expected) throws Exception {
        long deadline = System.nanoTime() + RUNS_TERMINAL_TIMEOUT.toNanos();
        Map<String, Long> byStatus = Map.of();
        while (System.nanoTime() < deadline) {
            byStatus = countBy("SELECT status, count(*) FROM eec_workflow_run GROUP BY status");
            long total = byStatus.values().stream().mapToLong(Long::longValue).sum();
            if (total == expected && byStatus.getOrDefault("RUNNING", 0L) == 0) {
                return;
            }
            Thread.sleep(250);
        }
        fail("runs not all terminal within " + RUNS_TERMINAL_TIMEOUT + ": " + byStatus
                + "; queue: " + countBy("SELECT kind, count(*) FROM eec_queue_item GROUP BY kind") + podLogTails(40));
    }

    /** Waits until the pods have worked off every queued item (the flood's leftovers tick as no-ops). */
    private static long awaitQueueDrained() throws Exception {
        long deadline = System.nanoTime() + QUEUE_DRAIN_TIMEOUT.toNanos();
        long left = Long.MAX_VALUE;
        while (System.nanoTime() < deadline) {
            left = single("SELECT count(*) FROM eec_queue_item");
            if (left == 0) {
                break;
            }
            Thread.sleep(200);
        }
        if (left != 0) {
            log("queue not drained within " + QUEUE_DRAIN_TIMEOUT + ": "
                    + countBy("SELECT kind || ' owner=' || coalesce(lease_owner, '-'), count(*) FROM eec_queue_item GROUP BY 1"));
        }
        return left;
    }

    // --- metrics -------------------------------------------------------------------------------------------------

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)(?:\\s+\\S+)?$");
    private static final Pattern OUTCOME = Pattern.compile("(?:^|,)\\s*(?:outcome|reason)=\"([^\"]*)\"");

    /**
     * Scrapes every pod; a pod meters a commit just after its transaction committed, so while the counted
     * commits are still below the versions in the database, give them a moment to catch up.
     */
    private static List<Map<String, Double>> scrapeUntilSettled(long versionSum) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            Thread.sleep(500);
            List<Map<String, Double>> scraped = new ArrayList<>();
            for (PodProcess pod : pods) {
                scraped.add(scrape(pod));
            }
            if (total(scraped, "ductor_tick_total", "committed") >= versionSum || System.nanoTime() > deadline) {
                return scraped;
            }
        }
    }

    /** Sample lines of one pod's /q/metrics, summed per "name" and per "name|outcome" (other labels ignored). */
    private static Map<String, Double> scrape(PodProcess pod) throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(pod.url("/q/metrics")))
                .header("Accept", "text/plain").GET());
        assertEquals(200, response.statusCode(), pod.name() + " /q/metrics");
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : response.body().split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line.trim());
            if (!m.matches()) {
                continue;
            }
            double value;
            try {
                value = Double.parseDouble(m.group(3));
            } catch (NumberFormatException e) {
                continue;
            }
            samples.merge(m.group(1), value, Double::sum);
            if (m.group(2) != null) {
                Matcher outcome = OUTCOME.matcher(m.group(2));
                if (outcome.find()) {
                    samples.merge(m.group(1) + "|" + outcome.group(1), value, Double::sum);
                }
            }
        }
        return samples;
    }

    private static double value(Map<String, Double> samples, String name, String outcome) {
        return samples.getOrDefault(outcome == null ? name : name + "|" + outcome, 0.0);
    }

    private static double total(List<Map<String, Double>> scraped, String name, String outcome) {
        return scraped.stream().mapToDouble(s -> value(s, name, outcome)).sum();
    }

    private static String perPod(List<Map<String, Double>> scraped, String outcome) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < scraped.size(); i++) {
            parts.add(pods.get(i).name() + ":" + Math.round(value(scraped.get(i), "ductor_tick_total", outcome)));
        }
        return String.join(",", parts);
    }

    /**
     * The series this test reads must be exported by every pod: a missing one would read as 0 and pass "no forced
     * failure" or "no error" without having looked.
     */
    private static List<String> missingMetrics(List<Map<String, Double>> scraped) {
        List<String> required = List.of("ductor_tick_total|committed", "ductor_tick_total|conflict", "ductor_tick_total|noop",
                "ductor_tick_total|error", "ductor_tick_retries_total", "ductor_requeues_total",
                "ductor_forced_failures_total|livelock", "ductor_forced_failures_total|stuck");
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < scraped.size(); i++) {
            for (String series : required) {
                if (!scraped.get(i).containsKey(series)) {
                    problems.add(pods.get(i).name() + " exports no " + series.replace("|", " of label value ")
                            + ": the checks above would have read it as 0");
                }
            }
        }
        return problems;
    }

    // --- database invariants -------------------------------------------------------------------------------------

    private static Map<String, Long> versionFigures() throws SQLException {
        Map<String, Long> figures = new LinkedHashMap<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT coalesce(sum(db_record_version), 0), coalesce(min(db_record_version), 0),"
                     + " coalesce(max(db_record_version), 0) FROM eec_workflow_run")) {
            rs.next();
            figures.put("sum", rs.getLong(1));
            figures.put("min", rs.getLong(2));
            figures.put("max", rs.getLong(3));
        }
        return figures;
    }

    private static List<String> checkRunsSucceeded(int expected) throws SQLException {
        Map<String, Long> byStatus = countBy("SELECT status, count(*) FROM eec_workflow_run GROUP BY status");
        if (byStatus.getOrDefault("SUCCEEDED", 0L) != expected || byStatus.size() != 1) {
            return List.of("expected all " + expected + " runs SUCCEEDED, found " + byStatus + "; e.g. "
                    + rows("SELECT run_id, status, output FROM eec_workflow_run WHERE status <> 'SUCCEEDED' LIMIT 3"));
        }
        return List.of();
    }

    /** seq is exactly 1..n per run, n = last_transition_seq, and n is what this DAG needs. */
    private static List<String> checkHistory() throws SQLException {
        List<String> bad = rows("""
                SELECT r.run_id, r.last_transition_seq, count(t.seq) AS n, count(DISTINCT t.seq) AS distinct_seqs,
                       min(t.seq) AS lo, max(t.seq) AS hi
                  FROM eec_workflow_run r LEFT JOIN eec_run_transition t ON t.run_id = r.run_id
                 GROUP BY r.run_id, r.last_transition_seq
                HAVING count(t.seq) <> count(DISTINCT t.seq) OR min(t.seq) IS DISTINCT FROM 1
                    OR max(t.seq) IS DISTINCT FROM count(t.seq) OR max(t.seq) IS DISTINCT FROM r.last_transition_seq
                 LIMIT 5""");
        List<String> problems = new ArrayList<>();
        if (!bad.isEmpty()) {
            problems.add("history seq not exactly 1..last_transition_seq: " + bad);
        }
        List<String> wrongLength = rows("SELECT run_id, last_transition_seq FROM eec_workflow_run WHERE last_transition_seq <> "
                + TRANSITIONS_PER_RUN + " LIMIT 5");
        if (!wrongLength.isEmpty()) {
            problems.add("expected " + TRANSITIONS_PER_RUN + " transitions per run, found: " + wrongLength);
        }
        return problems;
    }

    /** One PENDING->RUNNING, no RUNNING->RUNNING and one ->SUCCEEDED per (run, node), and attempts = 1. */
    private static List<String> checkDispatchedOnce(int runs) throws SQLException {
        List<String> problems = new ArrayList<>();
        String perNode = """
                SELECT run_id, node_id,
                       count(*) FILTER (WHERE from_state = 'PENDING' AND to_state = 'RUNNING') AS dispatched,
                       count(*) FILTER (WHERE from_state = 'RUNNING' AND to_state = 'RUNNING') AS redispatched,
                       count(*) FILTER (WHERE to_state = 'SUCCEEDED') AS succeeded
                  FROM eec_run_transition WHERE node_id IS NOT NULL
                 GROUP BY run_id, node_id""";
        long nodeRows = single("SELECT count(*) FROM (" + perNode + ") x");
        if (nodeRows != (long) runs * NODES.size()) {
            problems.add("expected node transitions for " + runs * NODES.size() + " (run, node) pairs, found " + nodeRows);
        }
        List<String> twice = rows("SELECT * FROM (" + perNode + ") x WHERE dispatched <> 1 OR redispatched <> 0 OR succeeded <> 1 LIMIT 5");
        if (!twice.isEmpty()) {
            problems.add("a node attempt dispatched or finished other than once: " + twice);
        }
        List<String> attempts = rows("""
                SELECT r.run_id, n.key, n.value ->> 'state', n.value ->> 'attempts'
                  FROM eec_workflow_run r, jsonb_each(r.node_states) n
                 WHERE n.value ->> 'attempts' <> '1' OR n.value ->> 'state' <> 'SUCCEEDED' LIMIT 5""");
        if (!attempts.isEmpty()) {
            problems.add("node_states with attempts <> 1 or not SUCCEEDED: " + attempts);
        }
        long nodeStates = single("SELECT count(*) FROM eec_workflow_run r, jsonb_each(r.node_states) n");
        if (nodeStates != (long) runs * NODES.size()) {
            problems.add("expected " + runs * NODES.size() + " node_states entries, found " + nodeStates);
        }
        return problems;
    }

    /**
     * Each node attempt of an http node ran its handler exactly once, as the service it calls counts the requests: a
     * step executed twice (two pods running one task, a redelivery after the result was in) shows here even though
     * the run applies its result once.
     */
    private static List<String> checkExecutedOnce(int runs) {
        List<String> problems = new ArrayList<>();
        Map<String, Integer> executions = ledger.executions();
        if (executions.size() != runs * COUNTED.size()) {
            problems.add("expected " + runs * COUNTED.size() + " executed node attempts of " + COUNTED + ", the ledger saw "
                    + executions.size());
        }
        Map<String, Integer> twice = ledger.executedMoreThanOnce();
        if (!twice.isEmpty()) {
            problems.add(twice.size() + " node attempt(s) executed more than once, e.g. "
                    + twice.entrySet().stream().limit(5).toList());
        }
        List<String> retried = executions.keySet().stream().filter(k -> !k.endsWith(" attempt 1")).limit(5).toList();
        if (!retried.isEmpty()) {
            problems.add("attempts other than the first were executed: " + retried);
        }
        return problems;
    }

    /**
     * All inbox rows consumed, none for a later attempt. (That no result is in the inbox twice needs no check: the
     * inbox's UNIQUE (run_id, dedup_key) makes it so. How often a step ran is {@link #checkExecutedOnce}'s; that each
     * result was applied exactly once is {@link #checkDispatchedOnce}'s check on the history.)
     */
    private static List<String> checkInbox(int runs) throws SQLException {
        List<String> problems = new ArrayList<>();
        List<String> wrong = rows("""
                SELECT run_id, dedup_key, attempt, consumed_at FROM eec_run_inbox
                 WHERE consumed_at IS NULL OR (kind = 'TASK_RESULT' AND attempt <> 1)
                 LIMIT 5""");
        if (!wrong.isEmpty()) {
            problems.add("inbox rows left unconsumed, or results of attempts that never ran: " + wrong);
        }
        long results = single("SELECT count(*) FROM eec_run_inbox WHERE kind = 'TASK_RESULT'");
        if (results > (long) runs * NODES.size()) {
            problems.add("more task results in the inbox (" + results + ") than node attempts (" + runs * NODES.size() + ")");
        }
        return problems;
    }

    // --- small helpers -------------------------------------------------------------------------------------------

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long single(String sql) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Map<String, Long> countBy(String sql) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }

    private static List<String> rows(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    row.add(rs.getMetaData().getColumnLabel(i) + "=" + rs.getString(i));
                }
                out.add("{" + String.join(" ", row) + "}");
            }
        }
        return out;
    }

    private static String podLogTails(int lines) {
        return launcher.logTails(lines);
    }

    private static double seconds(long nanos) {
        return Math.round(nanos / 1e8) / 10.0;
    }

    private static void log(String message) {
        System.out.println("[MultiPodCoordinationIT] " + message);
    }
}
