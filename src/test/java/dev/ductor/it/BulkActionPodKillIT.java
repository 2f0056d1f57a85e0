package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bulk reset of {@value #RUNS} failed runs worked through by two real Ductor JVMs on one PostgreSQL, one of them
 * SIGKILLed midway: the items it had claimed are handed on once their claim ({@value #CLAIM_SECONDS} s) runs out,
 * and the job finishes on the surviving pod. Every run is reset exactly once (one reset entry in its history, and its
 * failed node dispatched exactly once more), and the job's progress is true: {@code done} is the number of runs that
 * were actually reset, and done + skipped + failed = matched.
 *
 * <p>The failed node runs in a pool that is paused before the reset, so the reopened runs wait with their node
 * dispatched and unclaimed: nothing but the bulk action changes them, and a second reset of a run would show as a
 * third attempt. Once the job is done the pool opens, and every run fails again, on its second attempt.
 *
 * <p>Alone: {@code ./mvnw verify -Dinvoker.skip -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=BulkActionPodKillIT}.
 */
@Tag("it")
class BulkActionPodKillIT {

    private static final String SUITE = "BulkActionPodKillIT";
    private static final int RUNS = 500;
    private static final int CLAIM_SECONDS = 5;
    /** Small batches, so both pods hold some of the job at any time and the killed one dies holding a claim. */
    private static final String[] POD_SETTINGS = {"ductor.bulk.batch-size=10", "ductor.bulk.claim=" + CLAIM_SECONDS + "s"};
    private static final String WORKFLOW = "bulk-kill";
    private static final String POOL = "bulk-kill-pool";
    private static final String DEFINITION = """
            {"nodes": [{"id": "boom", "type": "task", "handler": "fail", "pool": "%s",
                        "input": {"message": "broken on purpose", "retryable": false}, "retry": {"maxAttempts": 1}}]}"""
            .formatted(POOL);
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    private static ItPostgres pg;
    private static Sql db;
    private static Pods pods;
    private static PodProcess doomed;
    private static PodProcess survivor;
    private static String admin;
    private static String client;
    private static String operator;
    private static long suiteStarted;

    @BeforeAll
    static void startPostgresAndTwoPods() throws Exception {
        suiteStarted = System.nanoTime();
        pg = ItPostgres.start(false);
        db = pg.sql();
        Pods.deleteOldLogs(Pods.workDir("bulk-kill-it"));
        pods = new Pods(SUITE, Pods.workDir("bulk-kill-it"), pg.jdbcUrl());
        doomed = pods.launch("pod-doomed", POD_SETTINGS);
        pods.awaitReady(doomed); // it migrates the schema alone
        survivor = pods.launch("pod-survivor", POD_SETTINGS);
        pods.awaitReady(survivor);
        admin = pods.token("admin");
        client = pods.token("client");
        operator = pods.token("operator");
        ItHttp.expect(201, ItHttp.put(doomed, "/api/v1/pools/" + POOL, admin, "{\"capacity\": 50}"), "creating the pool");
        ItHttp.expect(201, ItHttp.put(doomed, "/api/v1/workflows/" + WORKFLOW, admin, DEFINITION), "defining " + WORKFLOW);
        log("pods ready after " + Pods.seconds(System.nanoTime() - suiteStarted) + " s: " + doomed + ", " + survivor);
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
    void aBulkResetAcrossTwoPodsWithOneKilledResetsEachRunOnceAndCountsTrue() throws Exception {
        startFailedRuns();
        setPoolPaused(doomed, true); // so the reset runs wait

        JsonNode job = ItHttp.expect(202, ItHttp.post(doomed, "/api/v1/bulk-actions", operator,
                "{\"action\": \"reset\", \"filter\": {\"workflow\": \"" + WORKFLOW + "\", \"status\": \"FAILED\"}}"), "the bulk reset");
        String id = job.path("id").asText();
        assertEquals(RUNS, job.path("matched").asInt(), job.toString());

        // Kill one pod once the job is under way, and well before it is through.
        long settledAtKill = awaitSettled(id, 60);
        String statusAtKill = status(id);
        long inFlightAtKill = db.single("SELECT count(*) FROM eec_bulk_action_item WHERE bulk_id = CAST(? AS uuid)"
                + " AND state = 'PENDING' AND claimed_until > now()", id);
        assertEquals(137, doomed.kill(), "SIGKILL");
        log("killed " + doomed.name() + " with " + settledAtKill + " of " + RUNS + " runs settled, " + inFlightAtKill
                + " claimed and not yet settled");
        assertEquals("RUNNING", statusAtKill, "the job was killed midway, not after it was through");
        assertTrue(settledAtKill < RUNS, "midway: " + settledAtKill);

        JsonNode done = awaitJob(survivor, id);
        log("the job finished on " + survivor.name() + ": " + done);
        assertFalse(doomed.isAlive());
        assertEquals("SUCCEEDED", done.path("status").asText(), done.toString());
        assertEquals(RUNS, done.path("matched").asInt(), done.toString());
        int doneCount = done.path("done").asInt();
        int skipped = done.path("skipped").asInt();
        int failed = done.path("failed").asInt();
        assertEquals(RUNS, doneCount + skipped + failed, "done + skipped + failed = matched: " + done);

        Map<String, Long> resetEntries = db.countBy("""
                SELECT CAST(r.run_id AS text), count(t.run_id) FROM eec_workflow_run r
                  LEFT JOIN eec_run_transition t ON t.run_id = r.run_id AND t.node_id IS NULL AND t.cause LIKE 'reset by %'
                 WHERE r.workflow_name = ? GROUP BY r.run_id""", WORKFLOW);
        assertEquals(RUNS, resetEntries.size());
        long reset = resetEntries.values().stream().filter(n -> n > 0).count();
        List<String> resetTwice = resetEntries.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
        assertTrue(resetTwice.isEmpty(), "runs reset more than once: " + resetTwice);
        assertEquals(reset, doneCount, "done counts exactly the runs that were reset: " + done);
        // Nothing else touched the runs, so each one was reset, none skipped, none failed.
        assertEquals(RUNS, reset, "every matched run reset: " + done);
        assertEquals(Map.of("DONE", (long) RUNS), db.countBy("SELECT state, count(*) FROM eec_bulk_action_item"
                + " WHERE bulk_id = CAST(? AS uuid) GROUP BY state", id));

        // Reopened and waiting on the paused pool: the node dispatched once more, its second attempt.
        assertEquals(Map.of("RUNNING|2", (long) RUNS), db.countBy("""
                SELECT status || '|' || (node_states -> 'boom' ->> 'attempts'), count(*) FROM eec_workflow_run
                 WHERE workflow_name = ? GROUP BY 1""", WORKFLOW));

        setPoolPaused(survivor, false);
        awaitRuns("FAILED|2", "every reset run ran its node once more and failed again");
    }

    /** {@value #RUNS} runs of the failing workflow, started over HTTP across both pods, each FAILED on its one attempt. */
    private static void startFailedRuns() throws Exception {
        long started = System.nanoTime();
        ExecutorService starters = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                PodProcess pod = i % 2 == 0 ? doomed : survivor;
                String key = "bulk-kill-" + i;
                calls.add(starters.submit(() -> ItHttp.expect(201, ItHttp.post(pod, "/api/v1/workflows/" + WORKFLOW + "/runs", client,
                        "{\"input\": {}, \"idempotencyKey\": \"" + key + "\"}"), "starting run " + key)));
            }
            for (Future<?> call : calls) {
                call.get();
            }
        } finally {
            starters.shutdownNow();
        }
        awaitRuns("FAILED|1", "every run failed on its one attempt");
        log(RUNS + " failed runs ready in " + Pods.seconds(System.nanoTime() - started) + " s");
    }

    /** Pauses or opens the pool, with the version a GET has just read as its If-Match. */
    private static void setPoolPaused(PodProcess pod, boolean paused) throws Exception {
        HttpResponse<String> current = ItHttp.get(pod, "/api/v1/pools/" + POOL, admin);
        ItHttp.expect(200, current, "reading the pool");
        String etag = current.headers().firstValue("ETag").orElseThrow();
        ItHttp.expect(200, ItHttp.send(HttpRequest.newBuilder(URI.create(pod.url("/api/v1/pools/" + POOL)))
                .header("Authorization", "Bearer " + admin).header("Content-Type", "application/json").header("If-Match", etag)
                .PUT(HttpRequest.BodyPublishers.ofString("{\"capacity\": 50, \"paused\": " + paused + "}"))), "pool paused=" + paused);
    }

    /** Waits until every run of the workflow is {@code status|attempts of boom}. */
    private static void awaitRuns(String expected, String what) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        Map<String, Long> now = Map.of();
        while (System.nanoTime() < deadline) {
            now = db.countBy("""
                    SELECT status || '|' || (node_states -> 'boom' ->> 'attempts'), count(*) FROM eec_workflow_run
                     WHERE workflow_name = ? GROUP BY 1""", WORKFLOW);
            if (now.equals(Map.of(expected, (long) RUNS))) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError(what + ": expected " + RUNS + " runs " + expected + ", have " + now + pods.logTails(30));
    }

    /** Waits until at least {@code n} of the job's runs are settled; returns how many are. */
    private static long awaitSettled(String id, long n) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            long settled = db.single("SELECT done + skipped + failed FROM eec_bulk_action WHERE bulk_id = CAST(? AS uuid)", id);
            if (settled >= n) {
                return settled;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the job did not settle " + n + " runs within " + DEADLINE + pods.logTails(30));
    }

    private static String status(String id) throws Exception {
        return db.maps("SELECT status FROM eec_bulk_action WHERE bulk_id = CAST(? AS uuid)", id).get(0).get("status");
    }

    /** The job's progress once it is no longer RUNNING, as the pod's API answers it. */
    private static JsonNode awaitJob(PodProcess pod, String id) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        JsonNode job = null;
        while (System.nanoTime() < deadline) {
            job = ItHttp.expect(200, ItHttp.get(pod, "/api/v1/bulk-actions/" + id, operator), "the job's progress");
            if (!"RUNNING".equals(job.path("status").asText())) {
                return job;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the job still RUNNING after " + DEADLINE + ": " + job + pods.logTails(30));
    }

    private static void log(String message) {
        System.out.println("[" + SUITE + "] " + message);
    }
}
