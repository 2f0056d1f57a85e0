package dev.ductor.run.commit;

import dev.ductor.queue.QueueItem;
import dev.ductor.run.CorruptRunStateException;
import dev.ductor.run.LocalSteps;
import dev.ductor.run.StepReport;
import dev.ductor.run.coordinator.TickTransaction;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import dev.ductor.support.Api;
import dev.ductor.support.ManualCoordination;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The state checksum covers what a tick decides on (status, last transition seq, output and tier as well as the
 * node states): a row changed behind Ductor's back in any of them is refused on tick and reported on GET, never
 * served as a healthy run. Rows written before the checksum covered them (the node-states-only form) still load,
 * and are sealed in the new form on their next commit.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("api")
class StateChecksumCoverageTest {

    /** A run parked on the signal {@code approve}, node {@code approve} WAITING with no attempt. */
    private static final String PARKED = "{\"nodes\":[{\"id\":\"approve\",\"type\":\"signal\",\"signal\":\"approve\"}]}";
    /**
     * The checksum Ductor wrote for that run's state before the checksum was versioned: SHA-256 of the node states
     * alone, {@code "approve"|WAITING|0|null|\n}, as rows already in a database hold it.
     */
    private static final String LEGACY_CHECKSUM_OF_PARKED = "644fe2a88c63d4e7a4992c9bf9795fb7054928562f3f8519cca7e1ec29cefe2b";

    @Inject
    TickTransaction ticks;

    @Inject
    GroupCommit groupCommit;

    @Inject
    Fixtures fixtures;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    DevTokenIssuer issuer;

    @ParameterizedTest
    @ValueSource(strings = {
            "status = 'SUCCEEDED'",
            "last_transition_seq = last_transition_seq + 5",
            "output = CAST('{\"forged\": true}' AS jsonb)",
            "tier = 'interactive'"})
    void aRowChangedBehindDuctorsBackIsRefusedOnTickAndReportedOnGet(String tampering) throws Exception {
        Api api = new Api(issuer);
        UUID runId = UUID.fromString(api.start(api.define(PARKED)));
        long version = fixtures.version(runId);
        sql("UPDATE eec_workflow_run SET " + tampering + " WHERE run_id = ?", runId);
        try {
            assertRefusedAndReported(api, runId, version, tampering);
        } finally {
            repair(runId); // the database is shared: a corrupt run left behind would trip other tests' passes
        }
    }

    private void assertRefusedAndReported(Api api, UUID runId, long version, String tampering) {
        assertThrows(CorruptRunStateException.class, () -> ticks.tickOnce(runId, List.of(), List.of()),
                "a tick must not advance (or drain) a run whose row was changed outside Ductor: " + tampering);
        assertEquals(version, fixtures.version(runId), "nothing was written");

        Response got = api.run(runId.toString());
        assertEquals(500, got.statusCode(), "GET must not serve the run as healthy: " + got.asString());
        assertTrue(got.contentType().startsWith("application/problem+json"), got.contentType());
        assertEquals("https://ductor.dev/problems/run-state-corrupt", got.path("type"));
        assertEquals(runId.toString(), got.path("runId"));
        assertEquals("corrupt", got.path("integrity"));

        // The list serves summaries, which leave out what the checksum covers (output, node outputs): it cannot judge a
        // row, and does not pretend to. It still serves the page, the run in it; a GET of the run refuses it.
        Response page = api.as("client").queryParam("limit", 200).get("/api/v1/runs");
        assertEquals(200, page.statusCode(), "one bad run must not take the whole list down: " + page.asString());
        List<String> listed = page.path("items.runId");
        assertTrue(listed.contains(runId.toString()), "the list still shows the run: " + page.asString());
    }

    @Test
    void anUntouchedRunIsServedWithoutAnIntegrityMark() {
        Api api = new Api(issuer);
        String runId = api.start(api.define(PARKED));
        Response got = api.run(runId);
        assertEquals(200, got.statusCode(), got.asString());
        assertNull(got.path("integrity"), got.asString());
    }

    @Test
    void aRowSealedInTheOldFormLoadsAndIsResealedInTheNewFormOnItsNextCommit() throws Exception {
        Api api = new Api(issuer);
        UUID runId = UUID.fromString(api.start(api.define(PARKED)));
        sql("UPDATE eec_workflow_run SET state_checksum = '" + LEGACY_CHECKSUM_OF_PARKED + "' WHERE run_id = ?", runId);

        Response got = api.run(runId.toString());
        assertEquals(200, got.statusCode(), "a row written before the upgrade is still a healthy run: " + got.asString());
        assertNull(got.path("integrity"), got.asString());

        api.as("client").body("{\"name\":\"approve\",\"idempotencyKey\":\"k1\"}")
                .post("/api/v1/runs/{id}/signals", runId.toString()).then().statusCode(202);
        ticks.tickOnce(runId, List.of(), List.of());

        assertEquals("SUCCEEDED", fixtures.status(runId));
        String resealed = checksum(runId);
        assertTrue(resealed.startsWith("v2:"), "its next commit seals it in the new form, got " + resealed);
        assertEquals(200, api.run(runId.toString()).statusCode());
    }

    @Test
    void aForgedTerminalStatusDoesNotSwallowAStepResult() throws Exception {
        String workflow = fixtures.chain("checksum", 2, "noop");
        UUID runId = fixtures.start("checksum", workflow);
        List<QueueItem> tasks = fixtures.claimTasks(runId, Set.of("noop"));
        assertEquals(1, tasks.size());
        QueueItem task = tasks.get(0);
        sql("UPDATE eec_workflow_run SET status = 'FAILED' WHERE run_id = ?", runId);
        try {
            groupCommit.apply(List.of(StepReport.completed(task.id(), task.leaseToken(), runId, task.nodeId(), task.attempt(),
                    task.tenant(), task.tier(), null)), LocalSteps.NONE);

            assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL", runId),
                    "the result waits in the inbox, where the coordinator refuses (and reports) the forged state,"
                            + " instead of being dropped as a finished run's leftover");
            assertThrows(CorruptRunStateException.class, () -> ticks.tickOnce(runId, List.of(), List.of()));
        } finally {
            repair(runId);
        }
        assertEquals("SUCCEEDED", text("SELECT node_states -> 'n0' ->> 'state' FROM eec_workflow_run WHERE run_id = ?", runId),
                "once the row is repaired, the kept result is applied");
    }

    @Test
    void aTierChangedThroughPatchIsSealedWithIt() throws Exception {
        Api api = new Api(issuer);
        UUID runId = UUID.fromString(api.start(api.define(PARKED)));
        api.as("operator").header("If-Match", "\"" + fixtures.version(runId) + "\"").body("{\"tier\":\"bulk\"}")
                .patch("/api/v1/runs/{id}", runId.toString()).then().statusCode(200);

        Response got = api.run(runId.toString());
        assertEquals(200, got.statusCode(), got.asString());
        assertEquals("bulk", got.path("tier"));
        ticks.tickOnce(runId, List.of(), List.of()); // loads, so verifies, without complaint
    }

    @Test
    void newRowsAreSealedInTheNewForm() {
        UUID runId = fixtures.start("checksum", fixtures.define("checksum", PARKED));
        assertTrue(checksum(runId).startsWith("v2:"), checksum(runId));
        assertFalse(checksum(runId).equals("v2:" + LEGACY_CHECKSUM_OF_PARKED));
    }

    /**
     * Puts a tampered run back as a parked or freshly started run is (each test tampers one column of such a run), so
     * its seal matches again.
     */
    private void repair(UUID runId) throws Exception {
        sql("UPDATE eec_workflow_run SET status = 'RUNNING', output = NULL, tier = 'standard',"
                + " last_transition_seq = (SELECT max(seq) FROM eec_run_transition t WHERE t.run_id = eec_workflow_run.run_id)"
                + " WHERE run_id = ?", runId);
        ticks.tickOnce(runId, List.of(), List.of()); // verifies: throws if the repair did not restore the seal
    }

    private String checksum(UUID runId) {
        return text("SELECT state_checksum FROM eec_workflow_run WHERE run_id = ?", runId);
    }

    private String text(String query, UUID runId) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(query)) {
            statement.setObject(1, runId);
            try (ResultSet rs = statement.executeQuery()) {
                assertTrue(rs.next());
                return rs.getString(1);
            }
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }

    private void sql(String update, UUID runId) throws Exception {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(update)) {
            statement.setObject(1, runId);
            assertEquals(1, statement.executeUpdate());
        }
    }
}
