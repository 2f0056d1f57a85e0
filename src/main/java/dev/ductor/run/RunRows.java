package dev.ductor.run;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Many runs' rows at once, for the group commit: one SELECT for all of them, and their versioned UPDATEs as one
 * JDBC batch. Plain JDBC on purpose: Hibernate's flush of a batch raises one exception for the whole batch when a
 * single row lost its race (and marks the transaction rollback-only), while the batch's own row counts tell
 * exactly which runs lost, so their neighbours still commit. The UPDATE is the same check as the entity's
 * {@code @Version}: pin the row, compare {@code db_record_version}, bump it by one; zero rows is a lost race.
 */
@ApplicationScoped
public class RunRows {

    /** A run row as a tick needs it (the output only to verify the checksum, which covers it). */
    public record Row(UUID runId, String tenant, String workflowName, int revision, String status, String tier,
                      String nodeStates, long lastSeq, String checksum, long version, String input, String output) {
    }

    /** A tick's new state for one run, to be written only if the run is still at {@code expectedVersion}. */
    public record Write(UUID runId, long expectedVersion, String status, String nodeStates, String checksum, long lastSeq,
                        String output) {
    }

    private static final String SELECT = """
            SELECT run_id, tenant, workflow_name, workflow_revision, status, tier, CAST(node_states AS text),
                   last_transition_seq, state_checksum, db_record_version, CAST(input AS text), CAST(output AS text)
              FROM eec_workflow_run WHERE run_id = ANY(?)""";

    private static final String UPDATE = """
            UPDATE eec_workflow_run
               SET status = ?, node_states = CAST(? AS jsonb), state_checksum = ?, last_transition_seq = ?,
                   output = CAST(? AS jsonb), updated_at = ?, db_record_version = db_record_version + 1
             WHERE run_id = ? AND db_record_version = ?""";

    private final EntityManager em;

    @Inject
    public RunRows(EntityManager em) {
        this.em = em;
    }

    public Map<UUID, Row> load(Collection<UUID> runIds) {
        if (runIds.isEmpty()) {
            return Map.of();
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            Map<UUID, Row> rows = new HashMap<>();
            try (PreparedStatement select = connection.prepareStatement(SELECT)) {
                Array ids = connection.createArrayOf("uuid", runIds.toArray());
                select.setArray(1, ids);
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        rows.put(id, new Row(id, rs.getString(2), rs.getString(3), rs.getInt(4), rs.getString(5),
                                rs.getString(6), rs.getString(7), rs.getLong(8), rs.getString(9), rs.getLong(10),
                                rs.getString(11), rs.getString(12)));
                    }
                }
            }
            return rows;
        });
    }

    /**
     * Writes each run if it is still at the version its tick was computed on; the answer says, per write in the
     * given order, whether it won. Callers pass the writes sorted by run id: every multi-run writer locks rows
     * in that order, so two batches waiting on each other's rows cannot deadlock.
     */
    public boolean[] update(List<Write> writes, Instant now) {
        if (writes.isEmpty()) {
            return new boolean[0];
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement update = connection.prepareStatement(UPDATE)) {
                OffsetDateTime at = now.atOffset(ZoneOffset.UTC);
                for (Write write : writes) {
                    update.setString(1, write.status());
                    update.setString(2, write.nodeStates());
                    update.setString(3, write.checksum());
                    update.setLong(4, write.lastSeq());
                    update.setString(5, write.output());
                    update.setObject(6, at);
                    update.setObject(7, write.runId());
                    update.setLong(8, write.expectedVersion());
                    update.addBatch();
                }
                int[] counts = update.executeBatch();
                boolean[] won = new boolean[counts.length];
                for (int i = 0; i < counts.length; i++) {
                    won[i] = counts[i] == 1;
                }
                return won;
            }
        });
    }
}
