package dev.ductor.queue;

import dev.ductor.database.PlannerSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * A claimed task's lease, from the claim to the end: the worker's heartbeat extends it, a report takes the row with
 * the token (fencing: taking the row is the acceptance), a pod shutting down gives it back, and the reaper takes rows
 * whose lease ran out. Every statement names the row by its id and the token, so a stale holder matches nothing.
 */
@ApplicationScoped
public class TaskLeases {

    @Inject EntityManager em;
    @Inject PlannerSettings plannerSettings;
    @Inject io.agroal.api.AgroalDataSource dataSource;

    /** A task taken by its report: what the run needs to know of it. */
    public record Taken(UUID runId, String node, int attempt, String tenant, String tier) {
    }

    // The statements, as they run: QueueIdLookupPlanTest EXPLAINs these very strings.
    static final String EXTEND_LEASE = """
            UPDATE eec_queue_item SET available_at = :until
             WHERE id = :id AND lease_token = :token AND (CAST(:tenant AS text) IS NULL OR tenant = :tenant)""";
    // No kind = 'TASK': it would let the planner reach the row by id through the expired-leases index (partial on
    // kind = 'TASK'), as QueueIdLookupPlanTest showed; a lease token is issued for one row, so it names a task already.
    static final String TAKE = """
            DELETE FROM eec_queue_item WHERE id = :id AND lease_token = :token
               AND (CAST(:tenant AS text) IS NULL OR tenant = :tenant)
            RETURNING run_id, node_id, attempt, tenant, tier""";
    static final String TAKE_EXPIRED = """
            WITH expired AS MATERIALIZED (
                SELECT id FROM eec_queue_item
                 WHERE kind = 'TASK' AND lease_token IS NOT NULL AND available_at <= :now
                 ORDER BY available_at, id
                 LIMIT :max
                 FOR UPDATE SKIP LOCKED)
            DELETE FROM eec_queue_item q WHERE q.id = ANY(ARRAY(SELECT id FROM expired))
            RETURNING %s""".formatted(QueueRepository.prefixed());
    static final String HELD = """
            SELECT run_id, node_id, attempt, tenant, tier, lease_owner FROM eec_queue_item
             WHERE id = :id AND lease_token = :token AND tenant = :tenant""";
    /** JDBC parameters: the ids (bigint[]), the tokens (uuid[]), the tenant; each row's own token is matched in Java. */
    static final String HELD_ALL = """
            SELECT id, lease_token, run_id, node_id, attempt, tenant, tier, lease_owner FROM eec_queue_item
             WHERE id = ANY(?) AND lease_token = ANY(?) AND tenant = ?""";
    static final String RELEASE = "UPDATE eec_queue_item SET lease_token = NULL, lease_owner = NULL, available_at = :now"
            + " WHERE id = :id AND lease_token = :token";
    /** JDBC parameters: the ids (bigint[]), then the tokens (uuid[]). */
    static final String TAKE_LEASED = """
            DELETE FROM eec_queue_item
             WHERE id = ANY(?) AND lease_token = ANY(?)
            RETURNING id""";

    /** Extends a lease still held with this token (by this tenant, unless null); false when it was lost. */
    public boolean extendLease(String tenant, long id, UUID leaseToken, Instant until) {
        return em.createNativeQuery(EXTEND_LEASE)
                .setParameter("id", id)
                .setParameter("token", leaseToken)
                .setParameter("until", until)
                .setParameter("tenant", tenant)
                .executeUpdate() == 1;
    }

    /**
     * Deletes the task row if, and only if, this lease token still holds it (by this tenant, unless null): the report
     * that takes it is the one accepted. Empty when the lease was lost or the row is gone.
     */
    public java.util.Optional<Taken> take(String tenant, long id, UUID leaseToken) {
        List<?> rows = em.createNativeQuery(TAKE)
                .setParameter("id", id)
                .setParameter("token", leaseToken)
                .setParameter("tenant", tenant)
                .getResultList();
        if (rows.isEmpty()) {
            return java.util.Optional.empty();
        }
        Object[] row = (Object[]) rows.get(0);
        return java.util.Optional.of(new Taken((UUID) row[0], (String) row[1], ((Number) row[2]).intValue(), (String) row[3],
                (String) row[4]));
    }

    /**
     * The task this token holds now, of this tenant, read without taking it: what a report needs to know to be applied
     * in a group commit, which takes the row itself (with the token) and so decides. Empty when the token holds nothing.
     * One self-committing statement outside any transaction: a JTA transaction around this read cost a begin and a
     * commit on every external step. Plain JDBC ({@code ?} for the named parameters of {@link #HELD}, in their order).
     */
    public java.util.Optional<Held> held(String tenant, long id, UUID leaseToken) {
        try (java.sql.Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(HELD.replace(":id", "?").replace(":token", "?")
                     .replace(":tenant", "?"))) {
            select.setLong(1, id);
            select.setObject(2, leaseToken);
            select.setString(3, tenant);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    return java.util.Optional.empty();
                }
                return java.util.Optional.of(new Held(new Taken(rs.getObject(1, UUID.class), rs.getString(2), rs.getInt(3),
                        rs.getString(4), rs.getString(5)), rs.getString(6)));
            }
        } catch (java.sql.SQLException e) {
            throw new jakarta.persistence.PersistenceException(e);
        }
    }

    /**
     * {@link #held} for a whole batch of reports in one statement (a statement and a pooled connection per result cost
     * more than the group commit that applies them): the tasks these tokens hold now, of this tenant, by id. A task
     * whose token is not the one given (an id paired with another result's token) is left out, as its own look-up
     * would leave it.
     */
    public java.util.Map<Long, Held> heldAll(String tenant, List<Long> ids, List<UUID> tokens) {
        java.util.Map<Long, Held> held = new java.util.HashMap<>();
        if (ids.isEmpty()) {
            return held;
        }
        java.util.Map<Long, UUID> wanted = new java.util.HashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            wanted.put(ids.get(i), tokens.get(i));
        }
        try (java.sql.Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(HELD_ALL)) {
            select.setArray(1, connection.createArrayOf("bigint", ids.toArray()));
            select.setArray(2, connection.createArrayOf("uuid", tokens.toArray()));
            select.setString(3, tenant);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    if (rs.getObject(2, UUID.class).equals(wanted.get(id))) {
                        held.put(id, new Held(new Taken(rs.getObject(3, UUID.class), rs.getString(4), rs.getInt(5),
                                rs.getString(6), rs.getString(7)), rs.getString(8)));
                    }
                }
            }
        } catch (java.sql.SQLException e) {
            throw new jakarta.persistence.PersistenceException(e);
        }
        return held;
    }

    /** A task leased now, and to whom ({@code lease_owner}: the claimer's tenant and worker id). */
    public record Held(Taken task, String owner) {
    }

    /** Whether a task row of this id is the tenant's (the run's inbox answers for a task already reported). */
    public boolean isTenants(String tenant, long id) {
        return (Boolean) em.createNativeQuery(
                        "SELECT EXISTS (SELECT 1 FROM eec_queue_item WHERE id = :id AND kind = 'TASK' AND tenant = :tenant)")
                .setParameter("id", id)
                .setParameter("tenant", tenant)
                .getSingleResult();
    }

    /** Task rows whose lease ran out, taken off the queue in one statement (the reaper decides what follows). */
    @SuppressWarnings("unchecked")
    public List<QueueItem> takeExpiredTaskLeases(Instant now, int max) {
        plannerSettings.forThisTransaction(); // the DELETE finds its rows by id = ANY(...), as the coordinator claim does
        List<Object[]> rows = em.createNativeQuery(TAKE_EXPIRED)
                .setParameter("now", now)
                .setParameter("max", max)
                .getResultList();
        return rows.stream().map(QueueRepository::toItem).toList();
    }

    /** Gives a claimed task back unfinished (this pod is shutting down): claimable at once, no attempt spent. */
    public boolean release(long id, UUID leaseToken, Instant now) {
        return em.createNativeQuery(RELEASE)
                .setParameter("id", id)
                .setParameter("token", leaseToken)
                .setParameter("now", now)
                .executeUpdate() == 1;
    }

    /**
     * Gives back unfinished every task still leased with one of these tokens, in one statement; returns how many. By
     * token alone: the pod handing them back may not know the rows' ids (their commit's answer never arrived). No index
     * holds the token, so this scans the queue: it runs only after a commit failed.
     */
    public int releaseAll(Collection<UUID> leaseTokens, Instant now) {
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement release = connection.prepareStatement("""
                    UPDATE eec_queue_item SET lease_token = NULL, lease_owner = NULL, available_at = ?
                     WHERE lease_token = ANY(?)""")) {
                dev.ductor.config.SqlTimestamps.bind(release, 1, now);
                release.setArray(2, connection.createArrayOf("uuid", leaseTokens.toArray()));
                return release.executeUpdate();
            }
        });
    }

    /**
     * Deletes the task rows still leased with the given tokens (id and token at the same index), in one statement;
     * returns the ids it took. Matching ids and tokens as two sets is matching them as pairs, because a lease token
     * is a fresh random UUID issued for one row; and a single-table predicate keeps the planner from joining its
     * way through a queue table it believes empty (see {@link QueueRepository#coordinatorClaimSql}). A row missing from the answer was fenced off: its lease expired and it was reaped or
     * claimed again, or its run finished.
     *
     * <p>No {@code kind = 'TASK'} in the predicate, although only tasks are reported: an id names one row, and that
     * equality would let the planner pick the claim index ({@code kind, available_at, id}) and filter every task row
     * by id. The group commit runs this statement on its generic plan ({@link dev.ductor.database.PlannerSettings}),
     * made while the table was young, and that is the plan a young table gets: an index scan
     * of all tasks where the primary key finds the handful reported.
     */
    public Set<Long> takeLeasedTasks(List<Long> ids, List<UUID> leaseTokens) {
        if (ids.isEmpty()) {
            return Set.of();
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            Set<Long> taken = new HashSet<>();
            try (PreparedStatement delete = connection.prepareStatement(TAKE_LEASED)) {
                delete.setArray(1, connection.createArrayOf("bigint", ids.toArray()));
                delete.setArray(2, connection.createArrayOf("uuid", leaseTokens.toArray()));
                try (ResultSet rs = delete.executeQuery()) {
                    while (rs.next()) {
                        taken.add(rs.getLong(1));
                    }
                }
            }
            return taken;
        });
    }
}
