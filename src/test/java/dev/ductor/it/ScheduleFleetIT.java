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
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A schedule that fires every second ({@code * * * * * ?}), run by three real Ductor JVMs on one PostgreSQL, each of
 * them running scheduler passes every second; one pod is stopped midway and started again. Over about
 * {@value #FIRING_SECONDS} s every fire time gets exactly one run (idempotency key {@code schedule:<name>:<time>}),
 * and none is missed: the runs' fire times are every second from the first one after the schedule was created to the
 * last one the schedule counts as handled (its cursor, read once it is paused), with no gap where the pod was down
 * or coming back.
 *
 * <p>Alone: {@code ./mvnw verify -Dinvoker.skip -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=ScheduleFleetIT}.
 */
@Tag("it")
class ScheduleFleetIT {

    private static final String SUITE = "ScheduleFleetIT";
    private static final int FIRING_SECONDS = 20;
    private static final String WORKFLOW = "fleet-tick";
    private static final String SCHEDULE = "every-second";
    private static final String KEY_PREFIX = "schedule:" + SCHEDULE + ":";
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private static ItPostgres pg;
    private static Sql db;
    private static Pods pods;
    private static final List<PodProcess> fleet = new ArrayList<>();
    private static String admin;
    private static long suiteStarted;

    @BeforeAll
    static void startPostgresAndThreePods() throws Exception {
        suiteStarted = System.nanoTime();
        pg = ItPostgres.start(false);
        db = pg.sql();
        Pods.deleteOldLogs(Pods.workDir("schedule-fleet-it"));
        pods = new Pods(SUITE, Pods.workDir("schedule-fleet-it"), pg.jdbcUrl());
        fleet.add(pods.launch("pod-1"));
        pods.awaitReady(fleet.get(0)); // it migrates the schema alone
        fleet.add(pods.launch("pod-2"));
        fleet.add(pods.launch("pod-3"));
        pods.awaitReady(fleet.get(1));
        pods.awaitReady(fleet.get(2));
        admin = pods.token("admin");
        ItHttp.expect(201, ItHttp.put(fleet.get(0), "/api/v1/workflows/" + WORKFLOW, admin,
                "{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]}"), "defining " + WORKFLOW);
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
    void threePodsWithOneRestartedStartExactlyOneRunPerFireTimeAndMissNone() throws Exception {
        String body = """
                {"cron": "* * * * * ?", "timezone": "UTC", "workflow": "%s", "input": {"from": "schedule"},
                 "overlap": "allow", "catchUp": "all"}""".formatted(WORKFLOW);
        HttpResponse<String> created = ItHttp.put(fleet.get(0), "/api/v1/schedules/" + SCHEDULE, admin, body);
        JsonNode schedule = ItHttp.expect(201, created, "creating the schedule");
        long firingStarted = System.nanoTime();
        Instant createdAt = Instant.parse(schedule.path("createdAt").asText());
        log("schedule created at " + createdAt);

        Thread.sleep(FIRING_SECONDS * 1000L / 3);
        PodProcess restarted = fleet.get(1);
        restarted.stop(Duration.ofSeconds(20));
        log(restarted.name() + " stopped after " + Pods.seconds(System.nanoTime() - firingStarted) + " s of firing");
        Thread.sleep(2000);
        PodProcess again = pods.launch("pod-2-restarted");
        fleet.set(1, again);
        pods.awaitReady(again);
        log(again.name() + " ready after " + Pods.seconds(System.nanoTime() - firingStarted) + " s of firing");
        // Keep firing until the whole span has passed, and a few passes with the restarted pod among the three.
        long until = Math.max(firingStarted + Duration.ofSeconds(FIRING_SECONDS).toNanos(), System.nanoTime() + 3_000_000_000L);
        Thread.sleep(Math.max(0, (until - System.nanoTime()) / 1_000_000));

        pause(fleet.get(2), body, created.headers().firstValue("ETag").orElseThrow());
        long micros = db.single("SELECT CAST(extract(epoch FROM fired_through) * 1000000 AS bigint) FROM eec_schedule"
                + " WHERE name = ?", SCHEDULE);
        Instant firedThrough = Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
        log("schedule paused; it counts every fire time up to " + firedThrough + " as handled");

        Map<String, Long> runsPerKey = db.countBy("SELECT idempotency_key, count(*) FROM eec_workflow_run WHERE workflow_name = ?"
                + " GROUP BY idempotency_key ORDER BY 1", WORKFLOW);
        List<String> doubled = runsPerKey.entrySet().stream().filter(e -> e.getValue() != 1).map(Map.Entry::getKey).toList();
        assertTrue(doubled.isEmpty(), "one run per fire time, not: " + doubled);
        TreeSet<Instant> fired = new TreeSet<>();
        for (String key : runsPerKey.keySet()) {
            assertTrue(key != null && key.startsWith(KEY_PREFIX), "a scheduled run's idempotency key: " + key);
            fired.add(Instant.parse(key.substring(KEY_PREFIX.length())));
        }

        TreeSet<Instant> expected = new TreeSet<>();
        for (Instant t = createdAt.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1); !t.isAfter(firedThrough); t = t.plusSeconds(1)) {
            expected.add(t);
        }
        TreeSet<Instant> missed = new TreeSet<>(expected);
        missed.removeAll(fired);
        TreeSet<Instant> unexpected = new TreeSet<>(fired);
        unexpected.removeAll(expected);
        log(fired.size() + " runs, fire times " + fired.first() + " .. " + fired.last());
        assertTrue(missed.isEmpty(), "fire times without a run: " + missed + pods.logTails(20));
        assertTrue(unexpected.isEmpty(), "runs for fire times before the schedule or after its cursor: " + unexpected);
        assertTrue(fired.size() >= FIRING_SECONDS - 2, "about " + FIRING_SECONDS + " s of fire times: " + fired.size());

        // Each of them is a whole run of the workflow.
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        Map<String, Long> statuses = Map.of();
        while (System.nanoTime() < deadline) {
            statuses = db.countBy("SELECT status, count(*) FROM eec_workflow_run WHERE workflow_name = ? GROUP BY status", WORKFLOW);
            if (statuses.equals(Map.of("SUCCEEDED", (long) fired.size()))) {
                break;
            }
            Thread.sleep(250);
        }
        assertEquals(Map.of("SUCCEEDED", (long) fired.size()), statuses, "every scheduled run ran");
    }

    /** Pauses the schedule (the same body with paused: true), based on the version it was created at. */
    private static void pause(PodProcess pod, String body, String etag) throws Exception {
        String paused = body.replaceFirst("\\}\\s*$", ", \"paused\": true}");
        ItHttp.expect(200, ItHttp.send(HttpRequest.newBuilder(URI.create(pod.url("/api/v1/schedules/" + SCHEDULE)))
                .header("Authorization", "Bearer " + admin).header("Content-Type", "application/json").header("If-Match", etag)
                .PUT(HttpRequest.BodyPublishers.ofString(paused))), "pausing the schedule");
    }

    private static void log(String message) {
        System.out.println("[" + SUITE + "] " + message);
    }
}
