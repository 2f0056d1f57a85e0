package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.run.live.RunChangeFeed;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import dev.ductor.support.SseStream;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GET /api/v1/runs/{id}/events over plain HTTP: the current state at once, every commit pushed (from any connection:
 * PostgreSQL NOTIFY), resumption by Last-Event-ID, the end of the stream at a terminal state, heartbeats, and the
 * same tenant and auth rules as GET /runs/{id}.
 */
@QuarkusTest
@Tag("api")
class RunEventsSseTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String GATED = """
            {"nodes": [
              {"id": "gate", "type": "signal", "signal": "go"},
              {"id": "work", "type": "task", "handler": "sleep", "input": {"ms": 150}, "dependsOn": ["gate"]},
              {"id": "done", "type": "task", "handler": "noop", "dependsOn": ["work"]}]}""";

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Config config;

    @Test
    void sendsTheRunAtOnceThenEveryCommitAndEndsAtItsTerminalState() throws Exception {
        Api api = new Api(issuer);
        String runId = api.start(api.define(GATED));
        long startVersion = version(api, runId);
        try (SseStream stream = SseStream.open("/api/v1/runs/" + runId + "/events", issuer.mint("client", api.tenant), null)) {
            assertEquals(200, stream.status, stream.body);
            assertTrue(stream.contentType.startsWith("text/event-stream"), stream.contentType);
            SseStream.Event first = stream.next(WAIT);
            assertNotNull(first, "no event on connect");
            assertEquals("run", first.name());
            JsonNode run = JSON.readTree(first.data());
            assertEquals(runId, run.path("runId").asText());
            assertEquals(String.valueOf(run.path("version").asLong()), first.id(), "the event id is the run's version");
            assertTrue(run.path("version").asLong() >= startVersion);

            api.as("client").body("{\"name\":\"go\",\"idempotencyKey\":\"sse-go\"}")
                    .post("/api/v1/runs/{id}/signals", runId).then().statusCode(202);
            List<JsonNode> seen = new ArrayList<>();
            long last = run.path("version").asLong();
            JsonNode latest = run;
            while (!List.of("SUCCEEDED", "FAILED", "CANCELLED").contains(latest.path("status").asText())) {
                SseStream.Event event = stream.next(WAIT);
                assertNotNull(event, "no event after " + seen.size() + " updates; last " + latest);
                latest = JSON.readTree(event.data());
                assertTrue(latest.path("version").asLong() > last, "versions only go up: " + event.id() + " after " + last);
                last = latest.path("version").asLong();
                seen.add(latest);
            }
            assertEquals("SUCCEEDED", latest.path("status").asText());
            assertTrue(seen.stream().anyMatch(r -> "RUNNING".equals(r.path("nodes").path("work").path("state").asText())),
                    "the intermediate state (work RUNNING, a 150 ms sleep) was pushed: " + seen);
            assertTrue(stream.endsWithin(WAIT), "the stream ends after the terminal state");
            JsonNode get = JSON.readTree(api.run(runId).then().statusCode(200).extract().asString());
            assertEquals(get, latest, "the last event's data is exactly GET /runs/{id}");
        }
    }

    @Test
    void resumesFromLastEventIdAndPushesACommitMadeOnAnotherConnection() throws Exception {
        Api api = new Api(issuer);
        String runId = api.start(api.define(GATED));
        long version = awaitWaiting(api, runId);
        String token = issuer.mint("operator", api.tenant);
        try (SseStream upToDate = SseStream.open("/api/v1/runs/" + runId + "/events", token, String.valueOf(version));
             SseStream behind = SseStream.open("/api/v1/runs/" + runId + "/events", token, String.valueOf(version - 1))) {
            SseStream.Event caughtUp = behind.next(WAIT);
            assertNotNull(caughtUp, "a client that is behind gets the current state at once");
            assertEquals(String.valueOf(version), caughtUp.id());
            assertNull(upToDate.next(Duration.ofMillis(700)), "a client that has the current version is not sent it again");

            // A commit by another connection (as another pod's would be): the trigger's NOTIFY reaches this pod's listener.
            try (Connection other = connect(); PreparedStatement bump = other.prepareStatement(
                    "UPDATE eec_workflow_run SET db_record_version = db_record_version + 1 WHERE run_id = ? AND db_record_version = ?")) {
                bump.setObject(1, UUID.fromString(runId));
                bump.setLong(2, version);
                assertEquals(1, bump.executeUpdate());
            }
            long pushedAt = System.nanoTime();
            SseStream.Event pushed = upToDate.next(WAIT);
            assertNotNull(pushed, "the other connection's commit was not pushed");
            assertEquals(String.valueOf(version + 1), pushed.id());
            assertTrue(Duration.ofNanos(System.nanoTime() - pushedAt).toMillis() < 2_000, "pushed, not polled");
            assertEquals(String.valueOf(version + 1), behind.next(WAIT).id());
            assertNotNull(upToDate.comment(Duration.ofSeconds(5)), "a heartbeat comment keeps the stream open");
        }
    }

    @Test
    void whenTheListenerLosesItsConnectionItReconnectsAndOpenStreamsReReadWhatTheyMissed() throws Exception {
        Api api = new Api(issuer);
        String runId = api.start(api.define(GATED));
        long version = awaitWaiting(api, runId);
        try (SseStream stream = SseStream.open("/api/v1/runs/" + runId + "/events", issuer.mint("client", api.tenant), null)) {
            assertEquals(String.valueOf(version), stream.next(WAIT).id());
            try (Connection other = connect()) {
                // The database drops the listener's session (as a restart or a failover would) ...
                try (PreparedStatement kill = other.prepareStatement("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        + " WHERE query = 'LISTEN " + RunChangeFeed.CHANNEL + "' AND pid <> pg_backend_pid()")) {
                    var rs = kill.executeQuery();
                    rs.next();
                    assertEquals(1, rs.getInt(1), "one listener connection per pod");
                }
                // ... and a commit lands while it is away: its notification goes to nobody.
                try (PreparedStatement bump = other.prepareStatement(
                        "UPDATE eec_workflow_run SET db_record_version = db_record_version + 1 WHERE run_id = ? AND db_record_version = ?")) {
                    bump.setObject(1, UUID.fromString(runId));
                    bump.setLong(2, version);
                    assertEquals(1, bump.executeUpdate());
                }
            }
            SseStream.Event caughtUp = stream.next(WAIT);
            assertNotNull(caughtUp, "after reconnecting, the stream re-read its run");
            assertEquals(String.valueOf(version + 1), caughtUp.id());
        }
    }

    @Test
    void anotherTenantsRunIs404AndNoTokenIs401() throws Exception {
        Api mine = new Api(issuer);
        Api theirs = new Api(issuer);
        String runId = mine.start(mine.define(GATED));
        try (SseStream other = SseStream.open("/api/v1/runs/" + runId + "/events", issuer.mint("admin", theirs.tenant), null)) {
            assertEquals(404, other.status, other.body);
            assertTrue(other.contentType.startsWith("application/problem+json"), other.contentType);
        }
        try (SseStream anonymous = SseStream.open("/api/v1/runs/" + runId + "/events", null, null)) {
            assertEquals(401, anonymous.status, anonymous.body);
        }
        try (SseStream bad = SseStream.open("/api/v1/runs/" + runId + "/events", issuer.mint("client", mine.tenant), "yesterday")) {
            assertEquals(400, bad.status, bad.body);
            assertTrue(bad.contentType.startsWith("application/problem+json"), bad.contentType);
        }
    }

    @Test
    void aFinishedRunIsSentOnceAndTheStreamEnds() throws Exception {
        Api api = new Api(issuer);
        String runId = api.start(api.define("{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"}]}"));
        assertEquals("SUCCEEDED", api.awaitStatus(runId, "SUCCEEDED"));
        String token = issuer.mint("client", api.tenant);
        try (SseStream stream = SseStream.open("/api/v1/runs/" + runId + "/events", token, null)) {
            SseStream.Event only = stream.next(WAIT);
            assertEquals("SUCCEEDED", JSON.readTree(only.data()).path("status").asText());
            assertTrue(stream.endsWithin(WAIT));
        }
        try (SseStream resumed = SseStream.open("/api/v1/runs/" + runId + "/events", token, String.valueOf(version(api, runId)))) {
            assertTrue(resumed.endsWithin(WAIT), "a client that saw the terminal version gets an empty, finished stream");
        }
    }

    private long awaitWaiting(Api api, String runId) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            var run = api.run(runId);
            if ("WAITING".equals(run.path("nodes.gate.state"))) {
                return run.jsonPath().getLong("version");
            }
            Thread.sleep(50);
        }
        throw new AssertionError("gate never WAITING: " + api.run(runId).asString());
    }

    private static long version(Api api, String runId) {
        return api.run(runId).jsonPath().getLong("version");
    }

    private Connection connect() throws Exception {
        return DriverManager.getConnection(config.getValue("quarkus.datasource.jdbc.url", String.class),
                config.getOptionalValue("quarkus.datasource.username", String.class).orElse(null),
                config.getOptionalValue("quarkus.datasource.password", String.class).orElse(null));
    }
}
