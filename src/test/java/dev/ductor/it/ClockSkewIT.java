package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Leases and due times follow the database's clock, not each pod's: two real Ductor JVMs share one PostgreSQL, and
 * one of them runs with its wall clock {@value #SKEW} off (libfaketime, Debian's {@code faketime} package, preloaded
 * into that JVM; the database and the other pod keep the machine's time).
 * <ol>
 * <li>a healthy step of a few seconds on the skewed pod, longer than its lease so that only heartbeats keep it, is
 *     not reaped by the other pod's lease reaper: one attempt, no "lease expired";</li>
 * <li>a {@code PT10S} timer armed by the skewed pod does not fire early on the other one: not before 10 s after the
 *     run was started, as the test (whose clock is the database's) measures it.</li>
 * </ol>
 * Before the database clock, the skewed pod wrote its leases and due times 40 s in the past: the reaper took the step
 * at once, and the timer fired at once.
 *
 * <p>Alone: {@code ./mvnw verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=ClockSkewIT}.
 */
@Tag("it")
class ClockSkewIT {

    private static final String SUITE = "ClockSkewIT";
    static final String SKEW = "-40s";
    private static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    private static final Map<String, String> SKEWED = Map.of(
            "LD_PRELOAD", LIBFAKETIME.toString(),
            // The monotonic clock is shifted by as much (a constant offset, harmless to intervals): with
            // FAKETIME_DONT_FAKE_MONOTONIC=1, libfaketime 0.9.10 breaks the JVM's timed waits (parks return at once).
            "FAKETIME", SKEW);
    /** A short lease, heartbeated every 2 s, so the 8 s step outlives it three times over. */
    private static final String[] POD_SETTINGS = {"ductor.worker.lease=6s", "ductor.worker.reap-interval=1s"};
    private static final Duration STEP = Duration.ofSeconds(8);
    private static final Duration TIMER = Duration.ofSeconds(10);
    /** What the pods' clock sync may miss the database's clock by (half a round trip on localhost: well under this). */
    private static final Duration SYNC_TOLERANCE = Duration.ofMillis(500);

    private static ItPostgres pg;
    private static Sql db;
    private static Pods pods;
    private static PodProcess steady;
    private static PodProcess skewed;
    private static String client;

    @BeforeAll
    static void startPostgresAndTwoPodsOneSkewed() throws Exception {
        assertSkewWorks();
        pg = ItPostgres.start(false);
        db = pg.sql();
        Pods.deleteOldLogs(Pods.workDir("clock-skew-it"));
        pods = new Pods(SUITE, Pods.workDir("clock-skew-it"), pg.jdbcUrl());
        // The steady pod only reaps and coordinates: every step runs on the skewed pod.
        steady = pods.launch("pod-steady", concat(POD_SETTINGS, "ductor.worker.enabled=false"));
        pods.awaitReady(steady); // it migrates the schema alone
        skewed = pods.launch("pod-skewed", SKEWED, POD_SETTINGS);
        pods.awaitReady(skewed);
        String admin = pods.token("admin");
        client = pods.token("client");
        ItHttp.expect(201, ItHttp.put(steady, "/api/v1/workflows/skew-step", admin, """
                {"nodes": [{"id": "slow", "type": "task", "handler": "sleep", "input": {"ms": %d},
                            "retry": {"maxAttempts": 2}}]}""".formatted(STEP.toMillis())), "defining skew-step");
        ItHttp.expect(201, ItHttp.put(steady, "/api/v1/workflows/skew-timer", admin, """
                {"nodes": [{"id": "wait", "type": "timer", "duration": "PT%dS"}]}""".formatted(TIMER.toSeconds())),
                "defining skew-timer");
    }

    @AfterAll
    static void stopPodsAndPostgres() {
        if (pods != null) {
            pods.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void aHealthyStepOnTheSkewedPodIsNotReapedByTheOtherPod() throws Exception {
        String runId = start(skewed, "skew-step", "step-1");

        JsonNode done = awaitRun(runId, r -> !"RUNNING".equals(r.path("status").asText()), Duration.ofSeconds(90),
                "the step to finish");
        JsonNode history = history(runId);
        assertEquals("SUCCEEDED", done.path("status").asText(), "run: " + done + "\n" + lines(history) + pods.logTails(30));
        assertEquals(1, done.at("/nodes/slow/attempts").asInt(), "the step ran more than once:\n" + lines(history));
        for (JsonNode t : history) {
            assertTrue(!t.path("cause").asText().contains("lease expired"), "a healthy step was reaped:\n" + lines(history));
        }
        assertEquals(List.of(), db.rows("SELECT id FROM eec_queue_item WHERE run_id = ?", UUID.fromString(runId)),
                "nothing left queued");
    }

    @Test
    void aTimerArmedByTheSkewedPodDoesNotFireEarly() throws Exception {
        long sent = System.nanoTime();
        String runId = start(skewed, "skew-timer", "timer-1");

        JsonNode done = awaitRun(runId, r -> "SUCCEEDED".equals(r.at("/nodes/wait/state").asText()), Duration.ofSeconds(60),
                "the timer to fire");
        Duration after = Duration.ofNanos(System.nanoTime() - sent);
        assertTrue(after.compareTo(TIMER.minus(SYNC_TOLERANCE)) >= 0, "a PT10S timer fired after " + after.toMillis()
                + " ms (seen at the latest then):\n" + lines(history(runId)));
        assertEquals("SUCCEEDED", awaitRun(runId, r -> !"RUNNING".equals(r.path("status").asText()), Duration.ofSeconds(30),
                "the run to finish").path("status").asText(), "run: " + done);
    }

    // --- the skew itself --------------------------------------------------------------------------------------------

    /** Fails plainly, naming the package, unless libfaketime is there and really moves a process's clock. */
    private static void assertSkewWorks() throws Exception {
        assertTrue(Files.isRegularFile(LIBFAKETIME), LIBFAKETIME + " is missing: apt-get install -y faketime (.ci/run does)");
        ProcessBuilder date = new ProcessBuilder("date", "+%s");
        date.environment().putAll(SKEWED);
        Process process = date.redirectErrorStream(true).start();
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "date under libfaketime did not finish");
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        long skewSeconds = Long.parseLong(out) - System.currentTimeMillis() / 1000;
        assertTrue(skewSeconds <= -35 && skewSeconds >= -45, "libfaketime did not skew the clock by " + SKEW + ": " + skewSeconds + " s");
    }

    // --- runs ---------------------------------------------------------------------------------------------------------

    private static String start(PodProcess pod, String workflow, String key) throws Exception {
        return ItHttp.expect(201, ItHttp.post(pod, "/api/v1/workflows/" + workflow + "/runs", client,
                "{\"input\": {}, \"idempotencyKey\": \"" + key + "\"}"), "starting " + workflow).path("runId").asText();
    }

    private static JsonNode awaitRun(String runId, Predicate<JsonNode> condition, Duration timeout, String what) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode run = null;
        while (System.nanoTime() < deadline) {
            run = ItHttp.expect(200, ItHttp.get(steady, "/api/v1/runs/" + runId, client), "GET run " + runId);
            if (condition.test(run)) {
                return run;
            }
            Thread.sleep(100);
        }
        fail("waited " + timeout + " for " + what + "; run " + run + "\nhistory:\n" + lines(history(runId)) + pods.logTails(40));
        return run;
    }

    private static JsonNode history(String runId) throws Exception {
        return ItHttp.expect(200, ItHttp.get(steady, "/api/v1/runs/" + runId + "/history", client), "history of " + runId);
    }

    private static String lines(JsonNode history) {
        List<String> out = new ArrayList<>();
        history.forEach(t -> out.add("  " + t.path("seq").asText() + " " + t.path("at").asText() + " "
                + t.path("node").asText("-") + " " + t.path("from").asText() + "->" + t.path("to").asText() + " "
                + t.path("cause").asText()));
        return String.join("\n", out);
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
