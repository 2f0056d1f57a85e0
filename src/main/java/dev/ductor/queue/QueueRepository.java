package dev.ductor.queue;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * The PostgreSQL queue. Raw SQL on purpose: the claim must be one statement with
 * {@code FOR UPDATE SKIP LOCKED} (JPQL has no SKIP LOCKED), and enqueueing needs {@code ON CONFLICT}
 * for keyed items. Every method joins the caller's transaction, so a tick's effects commit with its state.
 */
@ApplicationScoped
public class QueueRepository {

    private static final String COLUMNS =
            "id, kind, tenant, tier, run_id, node_id, attempt, handler, pool, payload, requeue_count, lease_token, available_at, deliveries";

    private final EntityManager em;

    @Inject
    public QueueRepository(EntityManager em) {
        this.em = em;
    }

    /** Inserts the items; a keyed item whose key is already queued is skipped. */
    public void enqueue(Collection<NewQueueItem> items, Instant now) {
        for (NewQueueItem item : items) {
            em.createNativeQuery("""
                            INSERT INTO eec_queue_item (kind, tenant, tier, run_id, node_id, attempt, handler, pool, task_key,
                                                        payload, requeue_count, available_at, created_at)
                            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, CAST(?10 AS jsonb), ?11, ?12, ?13)
                            ON CONFLICT (task_key) WHERE task_key IS NOT NULL DO NOTHING""")
                    .setParameter(1, item.kind().name())
                    .setParameter(2, item.tenant())
                    .setParameter(3, item.tier())
                    .setParameter(4, item.runId())
                    .setParameter(5, item.nodeId())
                    .setParameter(6, item.attempt())
                    .setParameter(7, item.handler())
                    .setParameter(8, item.pool())
                    .setParameter(9, item.taskKey())
                    .setParameter(10, item.payload())
                    .setParameter(11, item.requeueCount())
                    .setParameter(12, item.availableAt())
                    .setParameter(13, now)
                    .executeUpdate();
        }
    }

    /**
     * Claims up to {@code max} due coordinator items (wakeups, timers) in one statement, oldest due first.
     * Rows another claimer holds are skipped, not waited for. The claim pushes {@code available_at} to the
     * lease expiry and issues a fresh lease token, so a crashed claimer's rows come back by themselves.
     * Tasks are claimed fairly by {@link #claimTasks} instead.
     */
    @SuppressWarnings("unchecked")
    public List<QueueItem> claim(List<QueueKind> kinds, String owner, int max, Duration lease, Instant now) {
        if (kinds.contains(QueueKind.TASK)) {
            throw new IllegalArgumentException("tasks are claimed fairly, through claimTasks");
        }
        // Kinds are our own enum names, safe to inline.
        String kindList = kinds.stream().map(k -> "'" + k.name() + "'").collect(java.util.stream.Collectors.joining(", "));
        var query = em.createNativeQuery(coordinatorClaimSql(kindList))
                .setParameter(1, now)
                .setParameter(2, max)
                .setParameter(3, now.plus(lease))
                .setParameter(4, owner);
        List<Object[]> rows = query.getResultList();
        List<QueueItem> items = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            items.add(toItem(row));
        }
        return items;
    }

    /** Removes a claimed item if the lease is still ours; false when it was lost or already gone. */
    public boolean ack(long id, UUID leaseToken) {
        return em.createNativeQuery("DELETE FROM eec_queue_item WHERE id = ?1 AND lease_token = ?2")
                .setParameter(1, id)
                .setParameter(2, leaseToken)
                .executeUpdate() == 1;
    }

    /** Extends a lease still held with this token; false when it was lost. */
    public boolean extendLease(long id, UUID leaseToken, Instant until) {
        return em.createNativeQuery("UPDATE eec_queue_item SET available_at = ?3 WHERE id = ?1 AND lease_token = ?2")
                .setParameter(1, id)
                .setParameter(2, leaseToken)
                .setParameter(3, until)
                .executeUpdate() == 1;
    }

    /** Moves a run's queued items to another tier (an operator changed the run's tier). */
    public void retier(UUID runId, String tier) {
        em.createNativeQuery("UPDATE eec_queue_item SET tier = ?2 WHERE run_id = ?1")
                .setParameter(1, runId)
                .setParameter(2, tier)
                .executeUpdate();
    }

    /** The coordinator claim, also EXPLAINed by the tests: ?1 now, ?2 max, ?3 lease expiry, ?4 owner. */
    static String coordinatorClaimSql(String kindList) {
        return """
                WITH claimable AS (
                    SELECT id FROM eec_queue_item
                     WHERE kind IN (%s) AND available_at <= ?1
                     ORDER BY available_at, id
                     LIMIT ?2
                     FOR UPDATE SKIP LOCKED)
                UPDATE eec_queue_item q
                   SET available_at = ?3, lease_token = gen_random_uuid(), lease_owner = ?4, deliveries = q.deliveries + 1
                  FROM claimable
                 WHERE q.id = claimable.id
                RETURNING %s""".formatted(kindList, prefixed());
    }

    /**
     * Claims up to {@code max} unclaimed due tasks fairly, in one statement: weighted between tiers and even
     * between the tenants of a tier, by a lottery drawn per claim (see fairness.md beside this class).
     * {@code handlers} and {@code pool} narrow what this worker can run; {@code tenant} scopes an external
     * worker to its own tenant (null: any tenant, for in-process workers). A task is handed out once
     * (unclaimed rows only); an expired task lease is the {@code LeaseReaper}'s, which turns it into a failed
     * attempt so the retry policy decides, instead of silently running it again.
     */
    @SuppressWarnings("unchecked")
    public List<QueueItem> claimTasks(Collection<String> handlers, String tenant, String pool, String owner, int max,
                                      Duration lease, Instant now, TierWeights weights) {
        String filters = " AND handler = ANY(string_to_array(?5, chr(31)))"
                + (tenant == null ? "" : " AND tenant = ?6")
                + (pool == null ? "" : " AND pool = ?7");
        String sql = taskClaimSql(filters, weights.sqlValues());
        var query = em.createNativeQuery(sql)
                .setParameter(1, now)
                .setParameter(2, max)
                .setParameter(3, now.plus(lease))
                .setParameter(4, owner)
                .setParameter(5, String.join("\u001f", handlers));
        if (tenant != null) {
            query.setParameter(6, tenant);
        }
        if (pool != null) {
            query.setParameter(7, pool);
        }
        List<Object[]> rows = query.getResultList();
        return rows.stream().map(QueueRepository::toItem).toList();
    }

    /** The fair task claim, also EXPLAINed by the tests: ?1 now, ?2 max, ?3 lease expiry, ?4 owner, ?5 handlers. */
    static String taskClaimSql(String filters, String tierWeights) {
        return """
                WITH RECURSIVE flows(tier, tenant) AS (
                    (SELECT tier, tenant FROM eec_queue_item
                      WHERE kind = 'TASK' AND lease_token IS NULL AND available_at <= ?1 %1$s
                      ORDER BY tier, tenant LIMIT 1)
                  UNION ALL
                    SELECT nxt.tier, nxt.tenant FROM flows f CROSS JOIN LATERAL (
                        SELECT tier, tenant FROM eec_queue_item
                         WHERE kind = 'TASK' AND lease_token IS NULL AND available_at <= ?1 %1$s
                           AND (tier, tenant) > (f.tier, f.tenant)
                         ORDER BY tier, tenant LIMIT 1) nxt
                ),
                shares AS (
                    SELECT f.tier, f.tenant,
                           COALESCE(w.weight, 1.0) / count(*) OVER (PARTITION BY f.tier) AS share,
                           -ln(1.0 - random()) AS phase
                      FROM flows f LEFT JOIN (VALUES %2$s) AS w(tier, weight) ON w.tier = f.tier
                ),
                candidates AS (
                    SELECT c.id, (c.rank - 1 + s.phase) / s.share AS turn
                      FROM shares s CROSS JOIN LATERAL (
                          SELECT q.id, row_number() OVER (ORDER BY q.available_at, q.id) AS rank
                            FROM eec_queue_item q
                           WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.available_at <= ?1 %1$s
                             AND q.tier = s.tier AND q.tenant = s.tenant
                           ORDER BY q.available_at, q.id
                           LIMIT ?2) c
                ),
                claimable AS (
                    SELECT q.id FROM eec_queue_item q JOIN candidates c ON c.id = q.id
                     WHERE q.lease_token IS NULL
                     ORDER BY c.turn
                     LIMIT ?2
                     FOR UPDATE OF q SKIP LOCKED)
                UPDATE eec_queue_item q
                   SET available_at = ?3, lease_token = gen_random_uuid(), lease_owner = ?4, deliveries = q.deliveries + 1
                  FROM claimable
                 WHERE q.id = claimable.id
                RETURNING %3$s""".formatted(filters, tierWeights, prefixed());
    }

    /** Task rows whose lease ran out, taken off the queue in one statement (the reaper decides what follows). */
    @SuppressWarnings("unchecked")
    public List<QueueItem> takeExpiredTaskLeases(Instant now, int max) {
        List<Object[]> rows = em.createNativeQuery("""
                        WITH expired AS (
                            SELECT id FROM eec_queue_item
                             WHERE kind = 'TASK' AND lease_token IS NOT NULL AND available_at <= ?1
                             ORDER BY available_at, id
                             LIMIT ?2
                             FOR UPDATE SKIP LOCKED)
                        DELETE FROM eec_queue_item q USING expired WHERE q.id = expired.id
                        RETURNING %s""".formatted(prefixed()))
                .setParameter(1, now)
                .setParameter(2, max)
                .getResultList();
        return rows.stream().map(QueueRepository::toItem).toList();
    }

    /** Gives a claimed task back unfinished (this pod is shutting down): claimable at once, no attempt spent. */
    public boolean release(long id, UUID leaseToken, Instant now) {
        return em.createNativeQuery("UPDATE eec_queue_item SET lease_token = NULL, lease_owner = NULL, available_at = ?3"
                        + " WHERE id = ?1 AND lease_token = ?2")
                .setParameter(1, id)
                .setParameter(2, leaseToken)
                .setParameter(3, now)
                .executeUpdate() == 1;
    }

    /** A finished run's leftover tasks and timers can never matter again. */
    public int deleteForRun(UUID runId) {
        return em.createNativeQuery("DELETE FROM eec_queue_item WHERE run_id = ?1 AND kind <> 'WAKEUP'")
                .setParameter(1, runId)
                .executeUpdate();
    }

    private static String prefixed() {
        StringBuilder out = new StringBuilder();
        for (String column : COLUMNS.split(", ")) {
            out.append(out.length() == 0 ? "" : ", ").append("q.").append(column);
        }
        return out.toString();
    }

    private static QueueItem toItem(Object[] row) {
        return new QueueItem(
                ((Number) row[0]).longValue(),
                QueueKind.valueOf((String) row[1]),
                (String) row[2],
                (String) row[3],
                (UUID) row[4],
                (String) row[5],
                ((Number) row[6]).intValue(),
                (String) row[7],
                (String) row[8],
                row[9] == null ? null : row[9].toString(),
                ((Number) row[10]).intValue(),
                (UUID) row[11],
                toInstant(row[12]),
                ((Number) row[13]).intValue());
    }

    private static Instant toInstant(Object value) {
        if (value instanceof Instant instant) {
            return instant;
        }
        if (value instanceof Timestamp timestamp) {
            return timestamp.toInstant();
        }
        if (value instanceof java.time.OffsetDateTime odt) {
            return odt.toInstant();
        }
        throw new IllegalStateException("unexpected timestamp type " + value.getClass());
    }
}
