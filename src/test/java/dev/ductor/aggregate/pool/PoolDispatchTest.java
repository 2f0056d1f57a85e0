package dev.ductor.aggregate.pool;

import dev.ductor.support.Api;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;

import static dev.ductor.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Pools as a user meets them, through HTTP with this process's coordinator and in-process workers running: a
 * run whose pooled task cannot be dispatched waits (RUNNING, its task queued and unclaimed) and goes on as soon
 * as the pool allows, with no restart.
 */
@QuarkusTest
@Tag("api")
class PoolDispatchTest {

    /** Long enough for the workers (polling every 50 ms) to have claimed the task many times over, were it claimable. */
    private static final Duration HELD = Duration.ofMillis(1500);

    @Inject
    DevTokenIssuer issuer;

    @Inject
    DataSource dataSource;

    Api api;
    String pool;
    String workflow;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
        pool = unique("gpu");
        workflow = unique("pooled");
        Response defined = api.as("admin").body("""
                        {"nodes": [
                          {"id": "work", "type": "task", "handler": "noop", "pool": "%s"},
                          {"id": "after", "type": "task", "handler": "noop", "dependsOn": ["work"]}]}""".formatted(pool))
                .put("/api/v1/workflows/{name}", workflow);
        assertEquals(201, defined.statusCode(), defined::asString);
    }

    @Test
    void aPausedPoolDispatchesNothingAndResumingDispatches() throws Exception {
        api.createPool(pool, 2, true);
        String run = start();

        assertHeld(run);

        api.updatePool(pool, "{\"capacity\": 2, \"paused\": false}");
        assertEquals("SUCCEEDED", awaitTerminal(run));
    }

    @Test
    void aCapacityRaisedFromZeroTakesEffectAtOnce() throws Exception {
        api.createPool(pool, 0, false);
        String run = start();

        assertHeld(run);

        api.updatePool(pool, "{\"capacity\": 1}");
        assertEquals("SUCCEEDED", awaitTerminal(run));
    }

    @Test
    void aTaskWhosePoolIsNotDefinedWaitsUntilItIs() throws Exception {
        String run = start();

        assertHeld(run);

        api.createPool(pool, 1, false);
        assertEquals("SUCCEEDED", awaitTerminal(run));
    }

    private String start() {
        Response started = api.as("client").body("{}").post("/api/v1/workflows/{name}/runs", workflow);
        assertEquals(201, started.statusCode(), started::asString);
        return started.jsonPath().getString("runId");
    }

    /** The run stays RUNNING with its pooled task queued and never leased. */
    private void assertHeld(String run) throws Exception {
        long deadline = System.nanoTime() + HELD.toNanos();
        boolean queued = false;
        while (System.nanoTime() < deadline) {
            long[] counts = taskRows(run);
            assertEquals(0, counts[1], "the pooled task was leased while the pool did not allow it");
            queued |= counts[0] == 1;
            Thread.sleep(50);
        }
        assertEquals(1, taskRows(run)[0], "the pooled task waits in the queue");
        assertEquals("RUNNING", api.as("client").get("/api/v1/runs/{id}", run).jsonPath().getString("status"));
        assertEquals(true, queued);
    }

    /** [pooled task rows of the run, of which leased]. */
    private long[] taskRows(String run) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement("""
                SELECT count(*), count(*) FILTER (WHERE lease_token IS NOT NULL) FROM eec_queue_item
                 WHERE run_id = CAST(? AS uuid) AND kind = 'TASK' AND pool = ?""")) {
            s.setString(1, run);
            s.setString(2, pool);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    private String awaitTerminal(String run) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String status = null;
        while (System.nanoTime() < deadline) {
            status = api.as("client").get("/api/v1/runs/{id}", run).jsonPath().getString("status");
            if (!"RUNNING".equals(status)) {
                return status;
            }
            Thread.sleep(50);
        }
        return status;
    }
}
