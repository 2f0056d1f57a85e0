package dev.ductor.run.retention;

import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import dev.ductor.support.Fixtures;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Retention through its batch method, as a pass would run it, with "now" moved forward instead of waiting: what it
 * deletes (finished runs past their own revision's period or the default, whole trees, with their history, inbox and
 * queue rows) and what it keeps (running runs however old, finished runs within their period, a finished child while
 * its parent runs, a run reset meanwhile), and the metric that counts it.
 */
@QuarkusTest
@Tag("api")
@TestProfile(RetentionTest.OneHourByDefault.class)
class RetentionTest {

    /** A default of an hour, and no scheduled pass: the test runs the batches itself. */
    public static class OneHourByDefault implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("ductor.retention.default", "1h", "ductor.retention.enabled", "false",
                    "ductor.retention.batch-size", "500", "ductor.retention.max-batches-per-pass", "10000");
        }
    }

    private static final String ONE_NOOP = "{%s\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]}";
    private static final String WAITS = "{%s\"nodes\": [{\"id\": \"w\", \"type\": \"signal\", \"signal\": \"go\"}]}";
    private static final String FAILS = "{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"fail\","
            + " \"input\": {\"message\": \"bug\"}}]}";
    private static final String MINUTE = "\"retention\": \"PT1M\", ";

    @Inject DevTokenIssuer issuer;
    @Inject RetentionService retention;
    @Inject RunPurge purge;
    @Inject QueueRepository queue;
    @Inject Fixtures fixtures;
    @Inject MeterRegistry registry;
    @Inject Clock clock;

    @Test
    void retentionDeletesOnlyFinishedRunsPastTheirPeriod() {
        Api api = new Api(issuer);
        String child = api.define(ONE_NOOP.formatted(MINUTE));
        String onDefault = api.start(api.define(ONE_NOOP.formatted("")));
        String failedOnDefault = api.start(api.define(FAILS));
        String shortRun = api.start(api.define(WAITS.formatted(MINUTE)));
        String longRun = api.start(api.define(ONE_NOOP.formatted("\"retention\": \"P1D\", ")));
        String stillRunning = api.start(api.define(WAITS.formatted(MINUTE)));
        String runningParent = api.start(api.define(("{" + MINUTE + "\"nodes\": [{\"id\": \"kid\", \"type\": \"workflow\","
                + " \"workflow\": \"%s\"}, {\"id\": \"w\", \"type\": \"signal\", \"signal\": \"go\", \"dependsOn\": [\"kid\"]}]}")
                .formatted(child)));
        String finishedParent = api.start(api.define(("{" + MINUTE + "\"nodes\": [{\"id\": \"kid\", \"type\": \"workflow\","
                + " \"workflow\": \"%s\"}]}").formatted(child)));
        api.as("client").body("{\"name\": \"go\", \"idempotencyKey\": \"k1\"}").post("/api/v1/runs/{id}/signals", shortRun)
                .then().statusCode(202);
        for (String run : List.of(onDefault, shortRun, longRun, finishedParent)) {
            assertEquals("SUCCEEDED", api.awaitTerminal(run).getString("status"), run);
        }
        assertEquals("FAILED", api.awaitTerminal(failedOnDefault).getString("status"));
        assertEquals("WAITING", awaitWaiting(api, runningParent), "the parent waits for its signal after its child ended");
        String childOfRunning = childOf(runningParent);
        String childOfFinished = childOf(finishedParent);
        assertEquals("SUCCEEDED", api.awaitTerminal(childOfRunning).getString("status"));
        // A leftover: a timer far ahead that nothing will claim before retention comes.
        Instant later = clock.instant().plus(Duration.ofDays(1));
        QuarkusTransaction.requiringNew().run(() -> queue.enqueue(List.of(new NewQueueItem(QueueKind.TIMER, api.tenant,
                "standard", UUID.fromString(shortRun), "w", 0, null, null, null, null, 0, later)), clock.instant()));
        Map<String, Long> rowsOfShort = rowsOf(shortRun);
        assertTrue(rowsOfShort.get("eec_run_transition") > 0 && rowsOfShort.get("eec_run_inbox") > 0
                && rowsOfShort.get("eec_queue_item") > 0, "the run to delete owns rows in every table: " + rowsOfShort);
        Map<String, Long> owned = sum(rowsOf(shortRun), rowsOf(finishedParent), rowsOf(childOfFinished));
        Map<String, Double> before = deletedCounts();
        // Retention sees the whole database, which the suite's other tests share: their finished runs of short periods
        // go too, so the metric is held against the runs that really went, and this test's own against its ledger.
        long runsBefore = fixtures.count("SELECT count(*) FROM eec_workflow_run");

        // Ten minutes on: past the minute of the PT1M workflows, within the default hour.
        retention.runOnce(clock.instant().plus(Duration.ofMinutes(10)));
        long runsDeleted = runsBefore - fixtures.count("SELECT count(*) FROM eec_workflow_run");

        for (String gone : List.of(shortRun, finishedParent, childOfFinished)) {
            assertEquals(404, api.run(gone).statusCode(), gone + " is past its own minute and finished: deleted");
            assertEquals(Map.of("eec_workflow_run", 0L, "eec_run_transition", 0L, "eec_run_inbox", 0L, "eec_queue_item", 0L),
                    rowsOf(gone), "nothing of " + gone + " is left");
        }
        for (String kept : List.of(onDefault, failedOnDefault, longRun, stillRunning, runningParent, childOfRunning)) {
            assertEquals(200, api.run(kept).statusCode(), kept + " is kept");
        }
        Map<String, Double> after = deletedCounts();
        assertEquals((double) runsDeleted, after.get("eec_workflow_run") - before.get("eec_workflow_run"), "the metric counts the runs");
        assertTrue(runsDeleted >= 3, "this test's three runs are among them: " + runsDeleted);
        for (String table : List.of("eec_run_transition", "eec_run_inbox", "eec_queue_item")) {
            double counted = after.get(table) - before.get(table);
            if (runsDeleted == 3) { // alone in the database: exactly what this test's runs owned
                assertEquals(owned.get(table).doubleValue(), counted, "rows counted in " + table);
            } else {
                assertTrue(counted >= owned.get(table), "rows counted in " + table + ": " + counted + " of at least " + owned.get(table));
            }
        }

        // Two hours on: the default hour has passed too. The day of longRun has not, stillRunning is RUNNING however old,
        // and the finished child goes only with its parent, which still waits.
        retention.runOnce(clock.instant().plus(Duration.ofHours(2)));

        for (String gone : List.of(onDefault, failedOnDefault)) {
            assertEquals(404, api.run(gone).statusCode(), gone + " is past the default hour: deleted");
        }
        for (String kept : List.of(longRun, stillRunning, runningParent, childOfRunning)) {
            assertEquals(200, api.run(kept).statusCode(), kept + " is kept");
        }
        assertEquals("RUNNING", api.run(stillRunning).jsonPath().getString("status"));
        assertEquals("SUCCEEDED", api.run(childOfRunning).jsonPath().getString("status"));
    }

    @Test
    void aRunResetOrRunningAtDeleteTimeIsKeptWhateverItWasJudgedOn() {
        Api api = new Api(issuer);
        String runId = api.start(api.define(FAILS));
        assertEquals("FAILED", api.awaitTerminal(runId).getString("status"));
        UUID run = UUID.fromString(runId);
        long judged = fixtures.version(run);
        Response reset = api.as("operator").header("If-Match", "\"" + judged + "\"").body("{\"failedOnly\": true}")
                .post("/api/v1/runs/{id}/reset", runId);
        assertEquals(200, reset.statusCode(), reset.asString());

        RunPurge.Deleted stale = QuarkusTransaction.requiringNew().call(() -> purge.purge(List.of(Map.of(run, judged))));
        assertEquals(RunPurge.Deleted.NONE, stale, "judged finished at a version it has left: not deleted");
        assertEquals(200, api.run(runId).statusCode());

        String waiting = api.start(api.define(WAITS.formatted(MINUTE)));
        UUID live = UUID.fromString(waiting);
        long current = fixtures.version(live);
        RunPurge.Deleted running = QuarkusTransaction.requiringNew().call(() -> purge.purge(List.of(Map.of(live, current))));
        assertEquals(RunPurge.Deleted.NONE, running, "a running run at its current version: not deleted");
        assertEquals("RUNNING", api.run(waiting).jsonPath().getString("status"));
    }

    private String awaitWaiting(Api api, String runId) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String state = null;
        while (System.nanoTime() < deadline) {
            state = api.run(runId).jsonPath().getString("nodes.w.state");
            if ("WAITING".equals(state)) {
                return state;
            }
            sleepBriefly();
        }
        return state;
    }

    private String childOf(String parent) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            String rows = fixtures.rows("SELECT CAST(run_id AS text) FROM eec_workflow_run WHERE parent_run_id = ?1",
                    UUID.fromString(parent));
            if (!rows.equals("[]")) {
                return rows.substring(1, rows.length() - 1);
            }
            sleepBriefly();
        }
        throw new AssertionError("run " + parent + " started no child");
    }

    private Map<String, Long> rowsOf(String runId) {
        UUID run = UUID.fromString(runId);
        Map<String, Long> rows = new HashMap<>();
        for (String table : List.of("eec_workflow_run", "eec_run_transition", "eec_run_inbox", "eec_queue_item")) {
            rows.put(table, fixtures.count("SELECT count(*) FROM " + table + " WHERE run_id = ?1", run));
        }
        return rows;
    }

    @SafeVarargs
    private static Map<String, Long> sum(Map<String, Long>... rows) {
        Map<String, Long> total = new HashMap<>();
        for (Map<String, Long> one : rows) {
            one.forEach((table, n) -> total.merge(table, n, Long::sum));
        }
        return total;
    }

    private Map<String, Double> deletedCounts() {
        Map<String, Double> counts = new HashMap<>();
        for (String table : List.of("eec_workflow_run", "eec_run_transition", "eec_run_inbox", "eec_queue_item")) {
            counts.put(table, registry.find("ductor.retention.deleted").tag("table", table.substring("eec_".length()))
                    .counter().count());
        }
        return counts;
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
