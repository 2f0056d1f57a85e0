package dev.ductor.run;

import dev.ductor.support.Fixtures;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run's transitions and the aggregates' events are history: the database itself refuses to change or remove
 * them, whoever asks. Plain JDBC on the application's datasource, as a script or a bug would do it; appending
 * still works.
 */
@QuarkusTest
@Tag("db")
class HistoryIsAppendOnlyTest {

    @Inject
    Fixtures fixtures;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void theDatabaseRefusesToUpdateOrDeleteARunsTransitions() throws Exception {
        String tenant = fixtures.uniqueName("history");
        UUID runId = fixtures.start(tenant, fixtures.chain(tenant, 2, "noop"));
        long before = fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1", runId);
        String cause = causeOfSeq1(runId);

        assertRefused("UPDATE eec_run_transition SET cause = 'rewritten' WHERE run_id = ?", runId);
        assertRefused("DELETE FROM eec_run_transition WHERE run_id = ?", runId);
        assertRefused("TRUNCATE eec_run_transition", null);
        assertRefused("TRUNCATE eec_workflow_run CASCADE", null);

        assertTrue(fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1", runId) >= before);
        assertEquals(cause, causeOfSeq1(runId), "the first transition reads as it was written");
    }

    /**
     * Retention's door (V18) opens for finished runs only: a transaction that declares itself retention's still cannot
     * delete the history of a run that is running, nor change any history row.
     */
    @Test
    void retentionsDeclarationDoesNotOpenTheHistoryOfARunningRun() throws Exception {
        String tenant = fixtures.uniqueName("history");
        UUID runId = fixtures.start(tenant, fixtures.define(tenant,
                "{\"nodes\": [{\"id\": \"w\", \"type\": \"signal\", \"signal\": \"go\"}]}"));
        fixtures.awaitStatus(runId, "RUNNING");
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                c.createStatement().execute("SELECT set_config('ductor.retention', 'purge', true)");
                for (String sql : new String[] {"DELETE FROM eec_run_transition WHERE run_id = ?",
                        "UPDATE eec_run_transition SET cause = 'rewritten' WHERE run_id = ?"}) {
                    c.createStatement().execute("SAVEPOINT attempt");
                    try (PreparedStatement statement = c.prepareStatement(sql)) {
                        statement.setObject(1, runId);
                        SQLException refused = assertThrows(SQLException.class, statement::executeUpdate, sql);
                        assertTrue(refused.getMessage().contains("append-only"), () -> sql + ": " + refused.getMessage());
                    }
                    c.createStatement().execute("ROLLBACK TO SAVEPOINT attempt");
                }
            } finally {
                c.rollback();
            }
        }
        assertTrue(fixtures.count("SELECT count(*) FROM eec_run_transition WHERE run_id = ?1", runId) > 0);
    }

    @Test
    void theDatabaseRefusesToUpdateOrDeleteAnAggregatesEvents() throws Exception {
        String aggregate = "pool:" + fixtures.uniqueName("history") + ":p";
        try (Connection c = dataSource.getConnection(); PreparedStatement insert = c.prepareStatement("""
                INSERT INTO eec_aggregate_event (aggregate_type, tenant, name, aggregate_id, version, event_type, payload, recorded_at)
                VALUES ('pool', 't', 'p', ?, 1, 'PoolDefined', '{"capacity": 1}', now())""")) {
            insert.setString(1, aggregate);
            assertEquals(1, insert.executeUpdate(), "appending is allowed");
        }

        assertRefused("UPDATE eec_aggregate_event SET payload = '{\"capacity\": 9}' WHERE aggregate_id = ?", aggregate);
        assertRefused("DELETE FROM eec_aggregate_event WHERE aggregate_id = ?", aggregate);
        assertRefused("TRUNCATE eec_aggregate_event", null);

        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_aggregate_event WHERE aggregate_id = ?1"
                + " AND payload = CAST('{\"capacity\": 1}' AS jsonb)", aggregate));
    }

    private void assertRefused(String sql, Object parameter) throws SQLException {
        // In a transaction that is always rolled back: should the database ever accept, nothing is lost.
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement statement = c.prepareStatement(sql)) {
                if (parameter != null) {
                    statement.setObject(1, parameter);
                }
                SQLException refused = assertThrows(SQLException.class, statement::executeUpdate, sql);
                assertTrue(refused.getMessage().contains("append-only"), () -> sql + ": " + refused.getMessage());
            } finally {
                c.rollback();
            }
        }
    }

    private String causeOfSeq1(UUID runId) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement select = c.prepareStatement("SELECT cause FROM eec_run_transition WHERE run_id = ? AND seq = 1")) {
            select.setObject(1, runId);
            try (var rows = select.executeQuery()) {
                assertTrue(rows.next());
                return rows.getString(1);
            }
        }
    }
}
