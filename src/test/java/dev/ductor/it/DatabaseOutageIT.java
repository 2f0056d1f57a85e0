package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL goes away under a running pod and comes back (CONTRACT §6): while it is down the API answers 503
 * problem+json with Retry-After, saying the request was not applied, and /q/health/ready is DOWN within 1 s; when it
 * is back, everything works again without a restart. A pod that boots while the database is down waits for it
 * (saying so) instead of exiting, up to {@code ductor.database.startup-wait}. A real PostgreSQL, stopped and started.
 */
@Tag("it")
class DatabaseOutageIT {

    private static final String SUITE = "DatabaseOutageIT";
    private static final String CHAIN = "{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"},"
            + " {\"id\": \"b\", \"type\": \"task\", \"handler\": \"noop\", \"dependsOn\": [\"a\"]}]}";

    private static ItPostgres pg;
    private static Pods pods;

    @BeforeAll
    static void setUp() throws Exception {
        pg = ItPostgres.start(false);
        Pods.deleteOldLogs(Pods.workDir(SUITE));
        pods = new Pods(SUITE, Pods.workDir(SUITE), pg.jdbcUrl());
    }

    @AfterAll
    static void tearDown() {
        if (pods != null) {
            pods.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void anOutageIs503WithRetryAfterAndReadyDownWithinOneSecondAndTheNextRequestAfterItWorks() throws Exception {
        PodProcess pod = pods.launch("pod-1");
        pods.awaitReady(pod);
        String admin = pods.token("admin");
        String client = pods.token("client");
        ItHttp.expect(201, ItHttp.put(pod, "/api/v1/workflows/outage", admin, CHAIN), "define");
        String runId = ItHttp.expect(201, ItHttp.post(pod, "/api/v1/workflows/outage/runs", client, "{}"), "start").path("runId").asText();

        pg.stop();
        log("PostgreSQL stopped");
        List<String> wrong = new ArrayList<>();
        try {
            List<Long> readyMillis = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                long started = System.nanoTime();
                HttpResponse<String> ready = ItHttp.send(HttpRequest.newBuilder(URI.create(pod.url("/q/health/ready"))).GET());
                long millis = (System.nanoTime() - started) / 1_000_000;
                readyMillis.add(millis);
                if (ready.statusCode() != 503 || !ready.body().contains("DOWN")) {
                    wrong.add("ready: " + ready.statusCode() + " " + ready.body());
                }
                Thread.sleep(200);
            }
            log("ready DOWN in " + readyMillis + " ms");
            if (!readyMillis.stream().allMatch(ms -> ms < 1000)) {
                wrong.add("ready answers DOWN within 1 s: " + readyMillis + " ms");
            }

            for (HttpRequest.Builder request : List.of(
                    HttpRequest.newBuilder(URI.create(pod.url("/api/v1/workflows/outage/runs"))).header("Authorization", "Bearer " + client)
                            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"idempotencyKey\": \"during\"}")),
                    HttpRequest.newBuilder(URI.create(pod.url("/api/v1/runs/" + runId))).header("Authorization", "Bearer " + client).GET())) {
                long started = System.nanoTime();
                HttpResponse<String> response = ItHttp.send(request);
                long millis = (System.nanoTime() - started) / 1_000_000;
                log(response.request().method() + " " + response.request().uri().getPath() + " -> " + response.statusCode() + " in "
                        + millis + " ms " + response.headers().map() + " " + response.body());
                JsonNode problem = ItHttp.tree(response.body());
                boolean right = response.statusCode() == 503
                        && response.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")
                        && "5".equals(response.headers().firstValue("Retry-After").orElse(null))
                        && problem.path("status").asInt() == 503
                        && problem.path("type").asText().endsWith("/database-unavailable")
                        && !problem.path("mayHaveBeenApplied").asBoolean(true)
                        && millis < 6000;
                if (!right) {
                    wrong.add(response.request().method() + " " + response.request().uri().getPath() + ": expected 503 problem+json,"
                            + " Retry-After 5, mayHaveBeenApplied false, within 6 s; got " + response.statusCode() + " in " + millis
                            + " ms " + response.headers().map() + " " + response.body());
                }
            }
        } finally {
            pg.restart();
            log("PostgreSQL restarted");
        }
        assertEquals(List.of(), wrong, "while PostgreSQL was down");

        pods.awaitReady(pod);
        ItHttp.expect(200, ItHttp.get(pod, "/api/v1/runs/" + runId, client), "the run after the outage");
        String after = ItHttp.expect(201, ItHttp.post(pod, "/api/v1/workflows/outage/runs", client, "{\"idempotencyKey\": \"during\"}"),
                "the start refused during the outage, sent again").path("runId").asText();
        assertNotEquals(runId, after);
        awaitStatus(pod, client, after, "SUCCEEDED");
        assertFalse(Files.readString(pod.log(), StandardCharsets.UTF_8).contains("unexpected error"), "no outage was logged as an unexpected error");
    }

    @Test
    void aPodBootingWhileTheDatabaseIsDownWaitsForItAndGivesUpOnlyAfterTheLimit() throws Exception {
        pg.stop();
        log("PostgreSQL stopped before the pods boot");
        PodProcess waiting;
        PodProcess impatient;
        try {
            waiting = pods.launch("boot-waits"); // the default wait (60 s) is what a pod gets
            impatient = pods.launch("boot-gives-up", "ductor.database.startup-wait=3s");
            int exit = impatient.awaitExit(Duration.ofSeconds(90));
            String gaveUp = Files.readString(impatient.log(), StandardCharsets.UTF_8);
            assertNotEquals(0, exit, gaveUp);
            assertTrue(gaveUp.contains("Gave up waiting for the database"), impatient.tail(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!Files.readString(waiting.log(), StandardCharsets.UTF_8).contains("Waiting for the database")
                    && System.nanoTime() < deadline) {
                Thread.sleep(250);
            }
            assertTrue(waiting.isAlive(), "a pod waits for its database instead of exiting:\n" + waiting.tail(40));
            assertTrue(Files.readString(waiting.log(), StandardCharsets.UTF_8).contains("Waiting for the database"),
                    "it says that it waits:\n" + waiting.tail(40));
            Thread.sleep(3000);
            assertTrue(waiting.isAlive(), "still waiting:\n" + waiting.tail(40));
        } finally {
            pg.restart();
            log("PostgreSQL restarted");
        }
        pods.awaitReady(waiting);
        String client = pods.token("client");
        ItHttp.expect(200, ItHttp.get(waiting, "/api/v1/runs", client), "the pod that waited serves");
    }

    /**
     * The database crashes while a pod is in the middle of its start-up, not before it: the pod's migration is held
     * on a lock the test takes on {@code flyway_schema_history}, so the crash meets it there every time (its
     * connection open, its statement waiting), never by timing luck. The pod must wait for the database, saying so,
     * and come up when it is back, not exit (the chaos trial's finding 2).
     */
    @Test
    void aPodWhoseDatabaseCrashesInTheMiddleOfItsStartUpWaitsForItAndComesUp() throws Exception {
        if (pg.sql().single("SELECT count(*) FROM pg_tables WHERE tablename = 'flyway_schema_history'") == 0) {
            PodProcess migrator = pods.launch("boot-migrator");
            pods.awaitReady(migrator);
            migrator.stop(Duration.ofSeconds(20));
        }
        PodProcess booting;
        Connection holder = pg.sql().dataSource().getConnection();
        try {
            holder.setAutoCommit(false);
            try (Statement lock = holder.createStatement()) {
                lock.execute("LOCK TABLE flyway_schema_history IN ACCESS EXCLUSIVE MODE");
            }
            booting = pods.launch("boot-crash");
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (pg.sql().single("SELECT count(*) FROM pg_locks WHERE NOT granted"
                    + " AND relation = 'flyway_schema_history'::regclass") == 0) {
                assertTrue(booting.isAlive(), "the pod exited before its migration reached the lock:\n" + booting.tail(40));
                assertTrue(System.nanoTime() < deadline, "the pod's migration never waited on the lock:\n" + booting.tail(40));
                Thread.sleep(50);
            }
            log("boot-crash waits on flyway_schema_history in its start-up; crashing PostgreSQL");
            Duration down = pg.crashRestart(Duration.ofSeconds(3));
            log("PostgreSQL crash-restarted, unreachable " + down.toMillis() + " ms");
        } finally {
            try {
                holder.close();
            } catch (SQLException goneWithTheCrash) {
                // its server crashed under it
            }
        }
        pods.awaitReady(booting);
        String output = Files.readString(booting.log(), StandardCharsets.UTF_8);
        assertTrue(output.contains("Waiting for the database while migrating the schema"), "it said that it waits:\n"
                + booting.tail(60));
        assertFalse(output.lines().anyMatch(line -> line.matches("\\s*at [\\w$.]+\\(.*")),
                "one line per try, no stack trace:\n" + booting.tail(80));
        String admin = pods.token("admin");
        String client = pods.token("client");
        ItHttp.expect(201, ItHttp.put(booting, "/api/v1/workflows/boot-crash", admin, CHAIN), "define");
        String runId = ItHttp.expect(201, ItHttp.post(booting, "/api/v1/workflows/boot-crash/runs", client, "{}"), "start")
                .path("runId").asText();
        awaitStatus(booting, client, runId, "SUCCEEDED");
    }

    private static void awaitStatus(PodProcess pod, String token, String runId, String status) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            last = ItHttp.expect(200, ItHttp.get(pod, "/api/v1/runs/" + runId, token), "poll").path("status").asText();
            if (status.equals(last)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("run " + runId + " is " + last + ", not " + status);
    }

    private static void log(String message) {
        System.out.println("[" + SUITE + "] " + message);
    }
}
