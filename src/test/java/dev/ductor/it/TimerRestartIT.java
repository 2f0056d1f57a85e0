package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Timers fire after a restart. One real Ductor JVM on a durable PostgreSQL starts two runs: one waits on a
 * {@code timer} node (PT20S) before a {@code noop}, the other on a {@code signal} node with a PT18S timeout that no
 * signal will beat. The pod is SIGKILLed right away, well before either is due; both come due while no pod is up;
 * then a new pod (a new JVM, same database, same dev key) starts. It must fire each exactly once: the timer run ends
 * SUCCEEDED (one WAITING->SUCCEEDED for the timer, then the noop), the signal run ends FAILED with the signal node
 * timed out and its dependant SKIPPED (its runIf allSucceeded can no longer hold). Both fire on the new pod, after its launch. The durations leave 17 s
 * between the starts and the kill, which must come a second before the first is due: the 5 s of PT8S/PT6S were
 * too few for a pod on a loaded 2-core machine.
 *
 * <p>Twice: on a PostgreSQL the test runs (fsync on) that outlives the pods, and in the zero-setup mode where the
 * pod runs its own embedded PostgreSQL on a kept data directory ({@code ductor.embedded.ephemeral=false}): there
 * the kill -9 leaves that postmaster orphaned, and the new pod must stop it and start afresh on the same data.
 *
 * <p>Alone: {@code ./mvnw verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=TimerRestartIT}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("it")
class TimerRestartIT {

    private static final String SUITE = "TimerRestartIT";
    private static final String TIMER_WORKFLOW = "restart-timer";
    private static final String TIMER_DEFINITION = """
            {"nodes": [
              {"id": "wait", "type": "timer", "duration": "PT20S"},
              {"id": "after", "type": "task", "handler": "noop", "dependsOn": ["wait"]}]}""";
    private static final String SIGNAL_WORKFLOW = "restart-signal";
    private static final String SIGNAL_DEFINITION = """
            {"nodes": [
              {"id": "approval", "type": "signal", "signal": "approved", "timeout": "PT18S"},
              {"id": "after", "type": "task", "handler": "noop", "dependsOn": ["approval"]}]}""";

    private static final List<Pods> podSets = new ArrayList<>();
    private static ItPostgres pg;
    private static Path embeddedDataDir;
    private static long suiteStarted;

    @BeforeAll
    static void startPostgres() throws Exception {
        suiteStarted = System.nanoTime();
        Pods.deleteOldLogs(Pods.workDir("timer-restart-it"));
        pg = ItPostgres.start(true); // durable: the data outlives every pod
        log("PostgreSQL up at " + pg.jdbcUrl() + " (fsync on)");
    }

    @AfterAll
    static void stopPodsAndPostgres() {
        podSets.forEach(Pods::close);
        if (pg != null) {
            pg.close();
        }
        if (embeddedDataDir != null) {
            // Normally pod 2 stopped it on its way out; after a failure it may be pod 1's orphan.
            stopPostmaster(embeddedDataDir);
            Pods.deleteTree(embeddedDataDir);
        }
        log("pods and PostgreSQL stopped; whole IT took " + Pods.seconds(System.nanoTime() - suiteStarted) + " s");
    }

    @Test
    @Order(1)
    void onASharedPostgresATimerAndASignalTimeoutDueWhileNoPodRunsFireOnceAfterTheRestart() throws Exception {
        Pods pods = podSet(pg.jdbcUrl());
        scenario(pods, pg.sql(), "shared", null);
    }

    @Test
    @Order(2)
    void onThePodsOwnEmbeddedPostgresTheyFireOnceAfterAKillMinus9AndARestart() throws Exception {
        embeddedDataDir = Files.createTempDirectory("ductor-it-embedded-pg");
        int pgPort = Pods.freePort();
        Pods pods = podSet(null);
        Restart restart = scenario(pods, Sql.localhost(pgPort), "embedded", embeddedDataDir,
                "ductor.embedded.enabled=true", "ductor.embedded.ephemeral=false",
                "ductor.embedded.data-dir=" + embeddedDataDir, "ductor.embedded.port=" + pgPort);
        // The kill -9 orphaned pod 1's postmaster (the test queried it while no pod ran); pod 2 replaced it.
        assertTrue(restart.orphanPid() > 0, "no postmaster was left running by the killed pod");
        long now = postmasterPid(embeddedDataDir);
        assertTrue(now > 0 && now != restart.orphanPid(), "pod 2 runs its own postmaster (was " + restart.orphanPid()
                + ", now " + now + ")");
        assertFalse(ProcessHandle.of(restart.orphanPid()).map(ProcessHandle::isAlive).orElse(false),
                "the orphaned postmaster " + restart.orphanPid() + " still runs\n" + restart.second().tail(40));
    }

    private record Restart(PodProcess first, PodProcess second, long orphanPid) {
    }

    private static Pods podSet(String jdbcUrl) throws Exception {
        Pods pods = new Pods(SUITE, Pods.workDir("timer-restart-it"), jdbcUrl);
        podSets.add(pods);
        return pods;
    }

    /**
     * The crash and restart; {@code ownDataDir} is the pods' own embedded PostgreSQL data directory (null when they
     * share the test's), {@code settings} their extra properties.
     */
    private static Restart scenario(Pods pods, Sql db, String prefix, Path ownDataDir, String... settings) throws Exception {
        PodProcess first = pods.launch(prefix + "-1", settings);
        pods.awaitReady(first);
        String admin = pods.token("admin");
        String client = pods.token("client");
        ItHttp.expect(201, ItHttp.put(first, "/api/v1/workflows/" + TIMER_WORKFLOW, admin, TIMER_DEFINITION), "defining " + TIMER_WORKFLOW);
        ItHttp.expect(201, ItHttp.put(first, "/api/v1/workflows/" + SIGNAL_WORKFLOW, admin, SIGNAL_DEFINITION), "defining " + SIGNAL_WORKFLOW);

        String timerRun = start(first, client, TIMER_WORKFLOW, "timer-1");
        String signalRun = start(first, client, SIGNAL_WORKFLOW, "signal-1");
        // The run's first tick is committed with its creation: both are armed before the start returns.
        assertEquals("WAITING", getRun(first, client, timerRun).at("/nodes/wait/state").asText());
        assertEquals("WAITING", getRun(first, client, signalRun).at("/nodes/approval/state").asText());
        List<Map<String, String>> timers = timers(db);
        assertEquals(2, timers.size(), "one pending timer per run: " + timers);
        long firstDue = timers.stream().mapToLong(t -> Long.parseLong(t.get("due_ms"))).min().orElseThrow();
        long lastDue = timers.stream().mapToLong(t -> Long.parseLong(t.get("due_ms"))).max().orElseThrow();
        long now = System.currentTimeMillis();
        assertTrue(now < firstDue - 1000, "too slow: the first timer is due at " + Instant.ofEpochMilli(firstDue)
                + " and it is already " + Instant.ofEpochMilli(now) + "; the pod must die before it is due");

        int exit = first.kill();
        log("SIGKILLed " + first + ": exit " + exit + ", " + (firstDue - System.currentTimeMillis()) + " ms before the first"
                + " timer was due; timers " + timers);
        assertEquals(137, exit, "exit status of a SIGKILLed JVM");
        long orphan = ownDataDir == null ? -1 : postmasterPid(ownDataDir);
        if (ownDataDir != null) {
            log("the killed pod left its postmaster pid " + orphan + " running on " + ownDataDir);
        }

        // Nobody is up while both come due.
        sleepUntil(lastDue + 1000);
        List<Map<String, String>> overdue = timers(db);
        assertEquals(timers, overdue, "timers changed while no pod ran");
        assertEquals(2, db.single("SELECT count(*) FROM eec_queue_item WHERE kind = 'TIMER' AND available_at < now()"),
                "both timers past due");
        assertEquals(2, db.single("SELECT count(*) FROM eec_workflow_run WHERE status = 'RUNNING'"));

        long restartedAt = System.currentTimeMillis();
        PodProcess second = pods.launch(prefix + "-2", settings);
        pods.awaitReady(second);
        // The new pod reuses the dev key pair in the shared directory: the tokens read before the crash still work.
        JsonNode timerDone = awaitTerminal(pods, db, second, client, timerRun, Duration.ofSeconds(30));
        JsonNode signalDone = awaitTerminal(pods, db, second, client, signalRun, Duration.ofSeconds(30));
        JsonNode timerHistory = history(second, client, timerRun);
        JsonNode signalHistory = history(second, client, signalRun);
        log("history of the timer run " + timerRun + ":\n" + WorkerCrashIT.lines(timerHistory));
        log("history of the signal run " + signalRun + ":\n" + WorkerCrashIT.lines(signalHistory));

        // The timer fired once, after the restart, and the run went on to the end.
        assertEquals("SUCCEEDED", timerDone.path("status").asText(), "timer run: " + timerDone);
        assertEquals("SUCCEEDED", timerDone.at("/nodes/wait/state").asText());
        assertEquals("SUCCEEDED", timerDone.at("/nodes/after/state").asText());
        assertEquals(1, timerDone.at("/nodes/after/attempts").asInt());
        assertEquals(List.of("PENDING->WAITING", "WAITING->SUCCEEDED"), moves(timerHistory, "wait"));
        assertEquals(List.of("PENDING->RUNNING", "RUNNING->SUCCEEDED"), moves(timerHistory, "after"));
        assertEquals(List.of("(run) RUNNING->SUCCEEDED"), runMoves(timerHistory));
        JsonNode fired = transition(timerHistory, "wait", "WAITING");
        assertEquals("timer fired", fired.path("cause").asText());
        assertFiredAfterRestart(fired, restartedAt, due(timers, timerRun));

        // The signal's timeout fired once, after the restart, and failed the run as designed.
        assertEquals("FAILED", signalDone.path("status").asText(), "signal run: " + signalDone);
        assertEquals("FAILED", signalDone.at("/nodes/approval/state").asText());
        assertEquals("timed out waiting for signal 'approved'", signalDone.at("/nodes/approval/error").asText());
        assertEquals("SKIPPED", signalDone.at("/nodes/after/state").asText(), "a dependant whose runIf allSucceeded can no longer hold");
        assertEquals(List.of("PENDING->WAITING", "WAITING->FAILED"), moves(signalHistory, "approval"));
        assertEquals(List.of("PENDING->SKIPPED"), moves(signalHistory, "after"));
        assertEquals(List.of("(run) RUNNING->FAILED"), runMoves(signalHistory));
        JsonNode timedOut = transition(signalHistory, "approval", "WAITING");
        assertEquals("signal 'approved' timed out after PT18S", timedOut.path("cause").asText());
        assertFiredAfterRestart(timedOut, restartedAt, due(timers, signalRun));

        // A signal now is too late: the run is finished.
        assertEquals(409, ItHttp.post(second, "/api/v1/runs/" + signalRun + "/signals", client,
                "{\"name\": \"approved\", \"idempotencyKey\": \"late-approval\"}").statusCode(), "a signal to a failed run");

        for (String runId : List.of(timerRun, signalRun)) {
            JsonNode history = runId.equals(timerRun) ? timerHistory : signalHistory;
            for (int i = 0; i < history.size(); i++) {
                assertEquals(i + 1, history.get(i).path("seq").asLong(), "history seq gap:\n" + WorkerCrashIT.lines(history));
            }
            UUID run = UUID.fromString(runId);
            assertEquals(history.size(), db.single("SELECT last_transition_seq FROM eec_workflow_run WHERE run_id = ?", run));
            assertEquals(0, db.single("SELECT count(*) FROM eec_queue_item WHERE run_id = ? AND kind <> 'WAKEUP'", run),
                    "timers or tasks left queued for finished run " + runId);
        }
        assertTrue(second.isAlive(), second.name() + " died\n" + second.tail(40));
        return new Restart(first, second, orphan);
    }

    // --- helpers -----------------------------------------------------------------------------------------------

    private static String start(PodProcess pod, String client, String workflow, String key) throws Exception {
        return ItHttp.expect(201, ItHttp.post(pod, "/api/v1/workflows/" + workflow + "/runs", client,
                "{\"input\": {}, \"idempotencyKey\": \"" + key + "\"}"), "starting " + workflow).path("runId").asText();
    }

    private static JsonNode getRun(PodProcess pod, String client, String runId) throws Exception {
        return ItHttp.expect(200, ItHttp.get(pod, "/api/v1/runs/" + runId, client), "GET run " + runId);
    }

    private static JsonNode history(PodProcess pod, String client, String runId) throws Exception {
        return ItHttp.expect(200, ItHttp.get(pod, "/api/v1/runs/" + runId + "/history", client), "history of " + runId);
    }

    private static List<Map<String, String>> timers(Sql db) throws Exception {
        return db.maps("""
                SELECT CAST(run_id AS text) AS run_id, node_id, CAST(extract(epoch FROM available_at) * 1000 AS bigint) AS due_ms,
                       CAST(lease_token AS text) AS lease_token
                  FROM eec_queue_item WHERE kind = 'TIMER' ORDER BY available_at""");
    }

    private static long due(List<Map<String, String>> timers, String runId) {
        return timers.stream().filter(t -> t.get("run_id").equals(runId)).mapToLong(t -> Long.parseLong(t.get("due_ms")))
                .findFirst().orElseThrow();
    }

    private static JsonNode awaitTerminal(Pods pods, Sql db, PodProcess pod, String client, String runId, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode run = null;
        while (System.nanoTime() < deadline) {
            run = getRun(pod, client, runId);
            if (!"RUNNING".equals(run.path("status").asText())) {
                return run;
            }
            Thread.sleep(200);
        }
        fail("run " + runId + " not finished within " + timeout + " after the restart: " + run + "\nhistory:\n"
                + WorkerCrashIT.lines(history(pod, client, runId)) + "\nqueue: "
                + db.rows("SELECT kind, node_id, available_at, lease_owner FROM eec_queue_item WHERE run_id = ?", UUID.fromString(runId))
                + pods.logTails(40));
        return run;
    }

    private static List<String> moves(JsonNode history, String node) {
        List<String> moves = new ArrayList<>();
        for (JsonNode t : history) {
            if (node.equals(t.path("node").asText(null))) {
                moves.add(t.path("from").asText() + "->" + t.path("to").asText());
            }
        }
        return moves;
    }

    /** The run's own transitions after "started" (which has no from). */
    private static List<String> runMoves(JsonNode history) {
        List<String> moves = new ArrayList<>();
        for (JsonNode t : history) {
            if (t.path("node").isMissingNode() && t.hasNonNull("from")) {
                moves.add("(run) " + t.path("from").asText() + "->" + t.path("to").asText());
            }
        }
        return moves;
    }

    private static JsonNode transition(JsonNode history, String node, String from) {
        for (JsonNode t : history) {
            if (node.equals(t.path("node").asText(null)) && from.equals(t.path("from").asText())) {
                return t;
            }
        }
        throw new AssertionError("no " + node + " transition from " + from + ":\n" + WorkerCrashIT.lines(history));
    }

    private static void assertFiredAfterRestart(JsonNode transition, long restartedAt, long dueMs) {
        Instant at = WorkerCrashIT.instant(transition.path("at"));
        assertFalse(at.isBefore(Instant.ofEpochMilli(restartedAt)), "fired at " + at + ", before the restart at "
                + Instant.ofEpochMilli(restartedAt) + ": " + transition);
        assertFalse(at.isBefore(Instant.ofEpochMilli(dueMs)), "fired at " + at + ", before it was due at "
                + Instant.ofEpochMilli(dueMs) + ": " + transition);
        log(transition.path("node").asText() + " fired " + (at.toEpochMilli() - dueMs) + " ms after it was due, "
                + (at.toEpochMilli() - restartedAt) + " ms after the new pod was launched");
    }

    /** The postmaster running on a data directory (its postmaster.pid), or -1 when none is alive. */
    private static long postmasterPid(Path dataDir) {
        return postmaster(dataDir).map(ProcessHandle::pid).orElse(-1L);
    }

    private static Optional<ProcessHandle> postmaster(Path dataDir) {
        try {
            Path pidFile = dataDir.resolve("postmaster.pid");
            if (!Files.isRegularFile(pidFile)) {
                return Optional.empty();
            }
            List<String> lines = Files.readAllLines(pidFile);
            return lines.isEmpty() ? Optional.empty() : ProcessHandle.of(Long.parseLong(lines.get(0).trim()))
                    .filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Stops the postmaster a pod of this test left on its data directory (SIGTERM, then SIGKILL), if any. */
    private static void stopPostmaster(Path dataDir) {
        postmaster(dataDir).ifPresent(p -> {
            log("stopping the postmaster pid " + p.pid() + " left on " + dataDir);
            p.destroy();
            try {
                p.onExit().get(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        });
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
