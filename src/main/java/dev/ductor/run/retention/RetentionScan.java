package dev.ductor.run.retention;

import dev.ductor.config.SqlTimestamps;
import dev.ductor.run.core.RunStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * Retention's reads: the next page of top-level runs by run id, and the trees under some of them. Nothing here locks;
 * {@link RunPurge} locks and re-checks what these reads suggested.
 *
 * <p>Why by run id and not by status or finish time: the run row's updates are HOT (V11), which holds only while no
 * index covers a column that a commit changes; an index on {@code status} or {@code updated_at} would make every commit
 * of every run write all the table's indexes again. Run ids are UUIDv7, time first ({@code RunIds}), so the runs created
 * before a cutoff are a prefix of the primary key, and a run finishes after it was created: every run whose period may
 * have passed lies below {@code RunIds.firstAt(now - the shortest period)}. The scan walks that prefix a page at a time
 * with a cursor ({@link RetentionService}), and the runs still running or still within their period are stepped over
 * and met again on the next pass.
 */
@ApplicationScoped
public class RetentionScan {

    /** A run as retention judges it; {@code root} is the top-level run of its tree. */
    public record Scanned(UUID root, UUID runId, String tenant, String workflow, int revision, RunStatus status,
                          java.time.Instant finishedAt, long version) {
    }

    private static final String COLUMNS = "r.run_id, r.tenant, r.workflow_name, r.workflow_revision, r.status, r.updated_at,"
            + " r.db_record_version";

    // Top-level runs only: a child goes with its tree, never alone. A child whose parent row is missing (deleted by hand)
    // counts as top-level, or nothing would ever delete it. The primary key gives the order and the range.
    private static final String ROOTS = "SELECT " + COLUMNS + " FROM eec_workflow_run r"
            + " WHERE r.run_id > ? AND r.run_id < ?"
            + " AND (r.parent_run_id IS NULL OR NOT EXISTS (SELECT 1 FROM eec_workflow_run p WHERE p.run_id = r.parent_run_id))"
            + " ORDER BY r.run_id LIMIT ?";

    // Each root's descendants, through ix_workflow_run_parent; nesting is bounded by ductor.workflow.max-child-depth.
    private static final String TREES = """
            WITH RECURSIVE tree(root, run_id) AS (
                SELECT run_id, run_id FROM eec_workflow_run WHERE run_id = ANY(?)
                UNION ALL
                SELECT t.root, c.run_id FROM tree t JOIN eec_workflow_run c ON c.parent_run_id = t.run_id)
            SELECT t.root, %s FROM tree t JOIN eec_workflow_run r ON r.run_id = t.run_id""".formatted(COLUMNS);

    @Inject EntityManager em;

    /** Up to {@code limit} top-level runs with ids strictly between {@code after} and {@code before}, in id order. */
    public List<Scanned> roots(UUID after, UUID before, int limit) {
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement select = connection.prepareStatement(ROOTS)) {
                select.setObject(1, after);
                select.setObject(2, before);
                select.setInt(3, limit);
                return read(select, false);
            }
        });
    }

    /** Every run of the trees under these top-level runs, the roots included. */
    public List<Scanned> trees(Collection<UUID> roots) {
        if (roots.isEmpty()) {
            return List.of();
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement select = connection.prepareStatement(TREES)) {
                select.setArray(1, connection.createArrayOf("uuid", roots.toArray()));
                return read(select, true);
            }
        });
    }

    private static List<Scanned> read(PreparedStatement select, boolean withRoot) throws SQLException {
        List<Scanned> rows = new ArrayList<>();
        int c = withRoot ? 1 : 0;
        try (ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                UUID runId = rs.getObject(c + 1, UUID.class);
                rows.add(new Scanned(withRoot ? rs.getObject(1, UUID.class) : runId, runId, rs.getString(c + 2),
                        rs.getString(c + 3), rs.getInt(c + 4), RunStatus.valueOf(rs.getString(c + 5)),
                        SqlTimestamps.toInstant(rs.getObject(c + 6, java.time.OffsetDateTime.class)), rs.getLong(c + 7)));
            }
        }
        return rows;
    }
}
