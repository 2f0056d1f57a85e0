package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A worker killed mid-task (its JVM, not a mock) loses its lease, and the step is retried and applied once.
 *
 * <p>Two real Ductor JVMs (the packaged {@code quarkus-run.jar}) share one real PostgreSQL, with a 10 s task lease
 * (heartbeats every 3.3 s; a 3 s lease lost a live worker's task when two JVMs and a build shared 2 cores) and the
 * lease reaper looking every second:
 * <ol>
 * <li>fencing across JVMs: an external worker claims an {@code ext:crashy} task on one pod and goes silent; the
 *     reaper turns its expired lease into a retryable failure and attempt 2 is dispatched; the worker's late
 *     completion, heartbeat and failure with attempt 1's lease token, sent to the other pod, are answered 409 and
 *     change nothing; attempt 2 completes once (a repeated identical completion is a 200 no-op);</li>
 * <li>the crash: an {@code http} task whose call the {@link StepLedger} holds (attempt 1 never returns) is claimed by
 *     one pod's in-process worker, which heartbeats past its lease; that pod is SIGKILLed mid-task; the surviving
 *     pod reaps the lease (attempt 1 fails retryably), runs attempt 2 (answered once the test let it) and finishes the run. The
 *     ledger counts the handler's executions: each attempt ran exactly once. A late report with the dead worker's
 *     token is fenced off too.</li>
 * </ol>
 *
 * <p>Which pod's worker claims the sleep task is up to the queue; the test reads the claim's {@code lease_owner}
 * and kills exactly that JVM, so the other one is the survivor, every time.
 *
 * <p>Alone: {@code ./mvnw verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=WorkerCrashIT}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("it")
class WorkerCrashIT {

    private static final String SUITE = "WorkerCrashIT";
    private static final Duration LEASE = Duration.ofSeconds(10);
    /** How long past a lease's end the reaper (every 1 s) and a claim may take on a loaded machine. */
    private static final Duration REAP_WITHIN = LEASE.plusSeconds(20);
    private static final String[] POD_SETTINGS = {"ductor.worker.lease=10s", "ductor.worker.reap-interval=1s"};

    private static final String CRASH_WORKFLOW = "crash-http";

    private static String crashDefinition() {
        return """
            {"nodes": [
              {"id": "slow", "type": "task", "handler": "http", "input": %s, "retry": {"maxAttempts": 3}},
              {"id": "after", "type": "task", "handler": "noop", "dependsOn": ["slow"]}]}""".formatted(ledger.input("hold"));
    }
    private static final String FENCE_WORKFLOW = "crash-external";
    private static final String FENCE_DEFINITION = """
            {"nodes": [
              {"id": "ext", "type": "task", "handler": "ext:crashy", "retry": {"maxAttempts": 3}},
              {"id": "after", "type": "task", "handler": "noop", "dependsOn": ["ext"]}]}""";

    private static ItPostgres pg;
    private static StepLedger ledger;
    private static Sql db;
    private static Pods pods;
    private static PodProcess podA;
    private static PodProcess podB;
    private static String client;
    private static String worker;
    private static long suiteStarted;

    @BeforeAll
    static void startPostgresAndTwoPods() throws Exception {
        suiteStarted = System.nanoTime();
        ledger = new StepLedger();
        pg = ItPostgres.start(false);
        db = pg.sql();
        Pods.deleteOldLogs(Pods.workDir("worker-crash-it"));
        pods = new Pods(SUITE, Pods.workDir("worker-crash-it"), pg.jdbcUrl());
        log("PostgreSQL up at " + pg.jdbcUrl());
        podA = pods.launch("pod-A", POD_SETTINGS);
        pods.awaitReady(podA); // it migrates the schema alone
        podB = pods.launch("pod-B", POD_SETTINGS);
        pods.awaitReady(podB);
        String admin = pods.token("admin");
        client = pods.token("client");
        worker = pods.token("worker");
        ItHttp.expect(201, ItHttp.put(podA, "/api/v1/workflows/" + CRASH_WORKFLOW, admin, crashDefinition()), "defining " + CRASH_WORKFLOW);
        ItHttp.expect(201, ItHttp.put(podA, "/api/v1/workflows/" + FENCE_WORKFLOW, admin, FENCE_DEFINITION), "defining " + FENCE_WORKFLOW);
        log("pods ready after " + Pods.seconds(System.nanoTime() - suiteStarted) + " s: " + podA + ", " + podB);
    }

    @AfterAll
    static void stopPodsAndPostgres() {
        if (pods != null) {
            pods.close();
        }
        if (pg != null) {
            pg.close();
        }
        if (ledger != null) {
            ledger.close();
        }
        log("pods and PostgreSQL stopped; whole IT took " + Pods.seconds(System.nanoTime() - suiteStarted) + " s");
    }

    @Test
    @Order(1)
    void aStaleLeaseTokenIsFencedOffOnEveryPodOnceTheReaperTookTheTask() throws Exception {
        String runId = startRun(podA, FENCE_WORKFLOW, "fence-1");

        JsonNode claimed = ItHttp.expect(200, ItHttp.post(podA, "/api/v1/tasks/claim", worker,
                "{\"handlers\": [\"ext:crashy\"], \"workerId\": \"crashy-1\", \"max\": 1, \"waitSeconds\": 10}"), "claim on pod-A");
        assertEquals(1, claimed.size(), "one task claimed: " + claimed);
        JsonNode first = claimed.get(0);
        assertEquals(runId, first.path("runId").asText());
        assertEquals("ext", first.path("node").asText());
        assertEquals(1, first.path("attempt").asInt());
        String staleTaskId = first.path("taskId").asText();
        String staleToken = first.path("leaseToken").asText();
        Instant leaseExpiresAt = instant(first.path("leaseExpiresAt"));
        log("external worker claimed " + runId + "/ext attempt 1 as task " + staleTaskId + " on pod-A, lease until "
                + leaseExpiresAt + "; it now goes silent (no heartbeat)");

        // No heartbeat: the reaper (on either pod) must take the task and fail attempt 1 retryably.
        JsonNode reaped = awaitRun(podB, runId, r -> r.at("/nodes/ext/attempts").asInt() >= 2, REAP_WITHIN,
                "the reaper to turn the expired lease of attempt 1 into a failure and dispatch attempt 2");
        assertEquals("RUNNING", reaped.at("/nodes/ext/state").asText(), "ext retries: " + reaped);
        JsonNode history = history(podB, runId);
        JsonNode retry = only(history, "ext", "RUNNING", "RUNNING");
        assertTrue(retry.path("cause").asText().startsWith("attempt 1 failed: lease expired"), "retry cause: " + retry);
        assertFalse(instant(retry.path("at")).isBefore(leaseExpiresAt),
                "attempt 1 was failed at " + retry.path("at") + ", before its lease ran out at " + leaseExpiresAt);

        long versionBefore = reaped.path("version").asLong();
        int historyBefore = history.size();
        List<String> inboxBefore = inbox(runId);

        // The silent worker wakes up and reports with attempt 1's token, on the other pod: fenced off.
        HttpResponse<String> late = ItHttp.post(podB, "/api/v1/tasks/" + staleTaskId + "/complete", worker,
                "{\"leaseToken\": \"" + staleToken + "\", \"output\": {\"late\": true}}");
        assertConflict(late, "a completion with attempt 1's token after the reap (pod-B)");
        assertConflict(ItHttp.post(podA, "/api/v1/tasks/" + staleTaskId + "/heartbeat", worker,
                "{\"leaseToken\": \"" + staleToken + "\"}"), "a heartbeat with attempt 1's token (pod-A)");
        assertConflict(ItHttp.post(podA, "/api/v1/tasks/" + staleTaskId + "/fail", worker,
                "{\"leaseToken\": \"" + staleToken + "\", \"error\": \"late\", \"retryable\": false}"),
                "a non-retryable failure with attempt 1's token (pod-A)");

        JsonNode unchanged = getRun(podA, runId);
        assertEquals(versionBefore, unchanged.path("version").asLong(), "the fenced reports changed the run: " + unchanged);
        assertEquals(historyBefore, history(podA, runId).size(), "the fenced reports added history");
        assertEquals(inboxBefore, inbox(runId), "the fenced reports reached the inbox");

        // Attempt 2, claimed on pod-B and completed on pod-A; the identical repeat is a no-op.
        JsonNode second = ItHttp.expect(200, ItHttp.post(podB, "/api/v1/tasks/claim", worker,
                "{\"handlers\": [\"ext:crashy\"], \"workerId\": \"crashy-2\", \"max\": 1, \"waitSeconds\": 10}"), "claim on pod-B");
        assertEquals(1, second.size(), "attempt 2 claimable: " + second);
        assertEquals(2, second.get(0).path("attempt").asInt());
        assertNotEquals(staleTaskId, second.get(0).path("taskId").asText());
        assertNotEquals(staleToken, second.get(0).path("leaseToken").asText());
        String completion = "{\"leaseToken\": \"" + second.get(0).path("leaseToken").asText() + "\", \"output\": {\"attempt\": 2}}";
        String path = "/api/v1/tasks/" + second.get(0).path("taskId").asText() + "/complete";
        ItHttp.expect(200, ItHttp.post(podA, path, worker, completion), "completing attempt 2 on pod-A");
        ItHttp.expect(200, ItHttp.post(podB, path, worker, completion), "repeating that completion on pod-B");

        JsonNode done = awaitRun(podA, runId, r -> !"RUNNING".equals(r.path("status").asText()), Duration.ofSeconds(20),
                "the run to finish");
        history = history(podA, runId);
        log("history of " + runId + ":\n" + lines(history));
        assertEquals("SUCCEEDED", done.path("status").asText(), "run: " + done);
        assertEquals("SUCCEEDED", done.at("/nodes/ext/state").asText());
        assertEquals(2, done.at("/nodes/ext/attempts").asInt());
        assertEquals(2, done.at("/nodes/ext/output/attempt").asInt(), "attempt 2's output: " + done);
        assertNodeHistory(history, "ext", List.of("PENDING->RUNNING", "RUNNING->RUNNING", "RUNNING->SUCCEEDED"));
        assertEquals("attempt 2 completed", only(history, "ext", "RUNNING", "SUCCEEDED").path("cause").asText());
        assertGapFree(runId, history);
        assertResultsOncePerAttempt(runId, Map.of("ext:1", false, "ext:2", true, "after:1", true));
    }

    @Test
    @Order(2)
    void aWorkerKilledMidTaskLosesItsLeaseAndTheStepIsRetriedAndAppliedOnce() throws Exception {
        String runId = startRun(podB, CRASH_WORKFLOW, "crash-1");
        UUID run = UUID.fromString(runId);

        Map<String, String> claim = awaitTask(run, "slow", 1, Duration.ofSeconds(30));
        String owner = claim.get("lease_owner");
        PodProcess victim = owner.equals(podA.name()) ? podA : owner.equals(podB.name()) ? podB : null;
        assertTrue(victim != null, "attempt 1 claimed by an unknown owner: " + claim);
        PodProcess survivor = victim == podA ? podB : podA;
        long firstExpiry = Long.parseLong(claim.get("available_ms"));
        log("attempt 1 of " + runId + "/slow claimed by " + owner + " (task " + claim.get("id") + "); " + victim.name()
                + " will be killed, " + survivor.name() + " survives");

        // Past the first lease: the claimer's heartbeats must have kept the task (same token, lease pushed on).
        sleepUntil(firstExpiry + LEASE.toMillis() / 2);
        List<Map<String, String>> still = taskRows(run, "slow", 1);
        assertEquals(1, still.size(), "attempt 1 left the queue while its worker was alive and heartbeating: " + still
                + pods.logTails(30));
        assertEquals(claim.get("lease_token"), still.get(0).get("lease_token"), "re-claimed while heartbeating");
        assertEquals("1", still.get(0).get("deliveries"));
        assertTrue(Long.parseLong(still.get(0).get("available_ms")) > firstExpiry,
                "heartbeats did not extend the lease: " + claim + " -> " + still.get(0));

        long killedAt = System.currentTimeMillis();
        int exit = victim.kill();
        log("SIGKILLed " + victim + " mid-task: exit " + exit);
        assertFalse(victim.isAlive());
        assertEquals(137, exit, "exit status of a SIGKILLed JVM");

        // The survivor reaps the expired lease and its worker claims attempt 2.
        Map<String, String> retried = awaitTask(run, "slow", 2, REAP_WITHIN);
        assertEquals(survivor.name(), retried.get("lease_owner"), "attempt 2 runs on the survivor: " + retried);
        assertTrue(taskRows(run, "slow", 1).isEmpty(), "attempt 1 is off the queue");
        JsonNode reapedRun = getRun(survivor, runId);
        assertEquals(2, reapedRun.at("/nodes/slow/attempts").asInt(), "run: " + reapedRun);
        JsonNode retry = only(history(survivor, runId), "slow", "RUNNING", "RUNNING");
        log("lease of the dead worker reaped and attempt 2 dispatched " + (instant(retry.path("at")).toEpochMilli() - killedAt)
                + " ms after the kill; attempt 2 claimed by " + retried.get("lease_owner"));

        // The dead worker's report, had it got one out, is fenced off: its token no longer holds anything.
        long versionBefore = reapedRun.path("version").asLong();
        assertConflict(ItHttp.post(survivor, "/api/v1/tasks/" + claim.get("id") + "/complete", worker,
                "{\"leaseToken\": \"" + claim.get("lease_token") + "\", \"output\": {\"slept\": 20000}}"),
                "a completion with the dead worker's lease token");
        assertEquals(versionBefore, getRun(survivor, runId).path("version").asLong(), "the fenced completion changed the run");
        ledger.releaseRetries(); // attempt 2's call, held so far, now answers

        JsonNode done = awaitRun(survivor, runId, r -> !"RUNNING".equals(r.path("status").asText()), Duration.ofSeconds(45),
                "attempt 2 and the rest of the run");
        JsonNode history = history(survivor, runId);
        log("history of " + runId + ":\n" + lines(history));
        assertEquals("SUCCEEDED", done.path("status").asText(), "run: " + done);
        assertEquals("SUCCEEDED", done.at("/nodes/slow/state").asText());
        assertEquals(2, done.at("/nodes/slow/attempts").asInt(), "attempts of the sleep node: " + done);
        assertEquals(200, done.at("/nodes/slow/output/status").asInt(), "output of attempt 2: " + done);
        assertEquals("{\"attempt\": 2}", done.at("/nodes/slow/output/body").asText(), "output of attempt 2: " + done);
        assertEquals("SUCCEEDED", done.at("/nodes/after/state").asText());
        assertEquals(1, done.at("/nodes/after/attempts").asInt());

        assertNodeHistory(history, "slow", List.of("PENDING->RUNNING", "RUNNING->RUNNING", "RUNNING->SUCCEEDED"));
        assertEquals("dispatched attempt 1 to 'http'", only(history, "slow", "PENDING", "RUNNING").path("cause").asText());
        String cause = retry.path("cause").asText();
        assertTrue(cause.startsWith("attempt 1 failed: lease expired") && cause.contains("attempt 2"), "retry cause: " + cause);
        assertEquals("attempt 2 completed", only(history, "slow", "RUNNING", "SUCCEEDED").path("cause").asText());
        assertNodeHistory(history, "after", List.of("PENDING->RUNNING", "RUNNING->SUCCEEDED"));
        assertGapFree(runId, history);
        assertResultsOncePerAttempt(runId, Map.of("slow:1", false, "slow:2", true, "after:1", true));
        // What ran, as the called service saw it: attempt 1 once (on the victim), attempt 2 once (on the survivor).
        List<Integer> executions = new ArrayList<>(ledger.executions().values());
        List<String> attempts = ledger.executions().keySet().stream().map(k -> k.substring(k.lastIndexOf(' ') + 1)).toList();
        assertEquals(List.of("1", "2"), attempts, "executed attempts of the http step: " + ledger.executions());
        assertEquals(List.of(1, 1), executions, "executions per attempt of the http step: " + ledger.executions());
        assertEquals(0, db.single("SELECT count(*) FROM eec_queue_item WHERE run_id = ? AND kind <> 'WAKEUP'", run),
                "tasks left queued for the finished run");
        assertTrue(survivor.isAlive(), survivor.name() + " died\n" + survivor.tail(40));
    }

    // --- runs and history ------------------------------------------------------------------------------------------

    private static String startRun(PodProcess pod, String workflow, String key) throws Exception {
        JsonNode started = ItHttp.expect(201, ItHttp.post(pod, "/api/v1/workflows/" + workflow + "/runs", client,
                "{\"input\": {}, \"idempotencyKey\": \"" + key + "\"}"), "starting " + workflow);
        return started.path("runId").asText();
    }

    private static JsonNode getRun(PodProcess pod, String runId) throws Exception {
        return ItHttp.expect(200, ItHttp.get(pod, "/api/v1/runs/" + runId, client), "GET run " + runId + " on " + pod.name());
    }

    private static JsonNode history(PodProcess pod, String runId) throws Exception {
        return ItHttp.expect(200, ItHttp.get(pod, "/api/v1/runs/" + runId + "/history", client), "history of " + runId);
    }

    private static JsonNode awaitRun(PodProcess pod, String runId, Predicate<JsonNode> condition, Duration timeout, String what)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode run = null;
        while (System.nanoTime() < deadline) {
            run = getRun(pod, runId);
            if (condition.test(run)) {
                return run;
            }
            Thread.sleep(200);
        }
        fail("waited " + timeout + " for " + what + "; run " + run + "\nhistory:\n" + lines(history(pod, runId))
                + "\nqueue: " + db.rows("SELECT kind, node_id, attempt, lease_owner, available_at FROM eec_queue_item WHERE run_id = ?",
                UUID.fromString(runId)) + pods.logTails(40));
        return run;
    }

    /** The run's history entries of one node moving {@code from -> to}; exactly one is expected. */
    private static JsonNode only(JsonNode history, String node, String from, String to) {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode t : history) {
            if (node.equals(t.path("node").asText(null)) && from.equals(t.path("from").asText()) && to.equals(t.path("to").asText())) {
                found.add(t);
            }
        }
        assertEquals(1, found.size(), "expected exactly one " + node + " " + from + "->" + to + " transition:\n" + lines(history));
        return found.get(0);
    }

    private static void assertNodeHistory(JsonNode history, String node, List<String> expected) {
        List<String> moves = new ArrayList<>();
        for (JsonNode t : history) {
            if (node.equals(t.path("node").asText(null))) {
                moves.add(t.path("from").asText() + "->" + t.path("to").asText());
            }
        }
        assertEquals(expected, moves, "transitions of node " + node + ":\n" + lines(history));
    }

    /** seq is exactly 1..n in the API and the table, and n is the run's last_transition_seq. */
    private static void assertGapFree(String runId, JsonNode history) throws Exception {
        for (int i = 0; i < history.size(); i++) {
            assertEquals(i + 1, history.get(i).path("seq").asLong(), "history seq gap:\n" + lines(history));
        }
        UUID run = UUID.fromString(runId);
        assertEquals(history.size(), db.single("SELECT last_transition_seq FROM eec_workflow_run WHERE run_id = ?", run));
        assertEquals(history.size(), db.single("SELECT count(DISTINCT seq) FROM eec_run_transition WHERE run_id = ?", run));
    }

    /**
     * Exactly one applied outcome per (node, attempt), the ones expected ({@code "node:attempt" -> completed}), read
     * from the history, where each applied result is one transition out of RUNNING naming its attempt (results reach
     * the run through the inbox or, for in-process steps, as the group commit's input); a failed one is the reaper's
     * lease-expired failure. No inbox row is left unconsumed.
     */
    private static void assertResultsOncePerAttempt(String runId, Map<String, Boolean> expected) throws Exception {
        UUID run = UUID.fromString(runId);
        // (No check that an inbox row is there once: the inbox's UNIQUE (run_id, dedup_key) makes it so. How often a
        // step ran is counted by the ledger.)
        assertEquals(List.of(), db.rows("SELECT id FROM eec_run_inbox WHERE run_id = ? AND consumed_at IS NULL", run),
                "inbox rows never consumed");
        Map<String, Boolean> found = new TreeMap<>();
        java.util.regex.Pattern outcome = java.util.regex.Pattern.compile("^attempt (\\d+) (completed|failed)(.*)$");
        for (Map<String, String> row : db.maps("SELECT node_id, cause FROM eec_run_transition WHERE run_id = ?"
                + " AND node_id IS NOT NULL AND from_state = 'RUNNING' ORDER BY seq", run)) {
            java.util.regex.Matcher m = outcome.matcher(row.get("cause"));
            assertTrue(m.matches(), "a transition out of RUNNING that is no attempt's outcome: " + row);
            String key = row.get("node_id") + ":" + m.group(1);
            boolean completed = m.group(2).equals("completed");
            assertTrue(found.put(key, completed) == null, "the outcome of " + key + " was applied twice: " + row);
            if (!completed) {
                assertTrue(m.group(3).contains("lease expired"), "failure of " + key + ": " + row);
            }
        }
        assertEquals(new TreeMap<>(expected), found, "applied outcomes per node:attempt (completed?)");
    }

    private static List<String> inbox(String runId) throws Exception {
        return db.rows("SELECT id, kind, dedup_key, CAST(payload AS text) AS payload FROM eec_run_inbox WHERE run_id = ? ORDER BY id",
                UUID.fromString(runId));
    }

    private static void assertConflict(HttpResponse<String> response, String what) {
        assertEquals(409, response.statusCode(), what + ": " + response.body());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                what + ": not problem+json: " + response.headers().map());
        log(what + " -> 409 " + response.body());
    }

    // --- the queue -------------------------------------------------------------------------------------------------

    private static List<Map<String, String>> taskRows(UUID run, String node, int attempt) throws Exception {
        return db.maps("""
                SELECT id, lease_owner, CAST(lease_token AS text) AS lease_token, deliveries,
                       CAST(extract(epoch FROM available_at) * 1000 AS bigint) AS available_ms
                  FROM eec_queue_item
                 WHERE run_id = ? AND kind = 'TASK' AND node_id = ? AND attempt = ?""", run, node, attempt);
    }

    /** Waits until the node attempt's task row is claimed (leased) and returns it. */
    private static Map<String, String> awaitTask(UUID run, String node, int attempt, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Map<String, String>> rows = List.of();
        while (System.nanoTime() < deadline) {
            rows = taskRows(run, node, attempt);
            if (rows.size() == 1 && rows.get(0).get("lease_token") != null) {
                return rows.get(0);
            }
            Thread.sleep(100);
        }
        fail("task " + node + " attempt " + attempt + " of " + run + " not claimed within " + timeout + ": " + rows
                + "\nqueue: " + db.rows("SELECT kind, node_id, attempt, lease_owner, available_at FROM eec_queue_item WHERE run_id = ?", run)
                + "\nrun: " + db.rows("SELECT status, CAST(node_states AS text) FROM eec_workflow_run WHERE run_id = ?", run)
                + pods.logTails(40));
        return null;
    }

    // --- small helpers ---------------------------------------------------------------------------------------------

    static Instant instant(JsonNode value) {
        if (value.isNumber()) {
            return Instant.ofEpochMilli(Math.round(value.asDouble() * 1000));
        }
        return Instant.parse(value.asText());
    }

    static String lines(JsonNode history) {
        StringBuilder out = new StringBuilder();
        for (JsonNode t : history) {
            out.append(String.format("  %2d %s %-6s %s->%s: %s%n", t.path("seq").asLong(), t.path("at").asText(),
                    t.path("node").asText("(run)"), t.path("from").asText("-"), t.path("to").asText(), t.path("cause").asText()));
        }
        return out.toString();
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long left = epochMillis - System.currentTimeMillis();
        if (left > 0) {
            Thread.sleep(left);
        }
    }

    private static void log(String message) {
        System.out.println("[" + SUITE + "] " + message);
    }
}
