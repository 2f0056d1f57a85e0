package dev.ductor.queue;

import dev.ductor.config.SqlTimestamps;
import dev.ductor.database.PlannerSettings;
import dev.ductor.database.MultiRowInsert;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * The PostgreSQL queue: enqueueing (keyed, as one JDBC batch), the coordinator's claim and ack of wakeups and timers,
 * and the outbox's housekeeping (retier, supersede, a finished run's leftovers). Tasks are claimed by {@link TaskClaim}
 * and their leases kept by {@link TaskLeases}. Raw SQL on purpose: a claim must be one statement with
 * {@code FOR UPDATE SKIP LOCKED} (JPQL has no SKIP LOCKED), and enqueueing needs {@code ON CONFLICT} for keyed
 * items. Every method joins the caller's transaction, so a tick's effects commit with its state.
 */
@ApplicationScoped
public class QueueRepository {

    private static final String COLUMNS =
            "id, kind, tenant, tier, run_id, node_id, attempt, handler, pool, payload, requeue_count, lease_token, available_at, deliveries";

    @Inject EntityManager em;
    @Inject PlannerSettings plannerSettings;

    private static final String ENQUEUE_SQL = """
            INSERT INTO eec_queue_item (kind, tenant, tier, run_id, node_id, attempt, handler, pool, task_key,
                                        payload, requeue_count, available_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?, ?)
            ON CONFLICT (task_key) WHERE task_key IS NOT NULL DO NOTHING""";

    /**
     * Inserts the items; a keyed item whose key is already queued is skipped. One JDBC batch, so a tick that
     * dispatches many tasks sends them together rather than one round trip each: plain JDBC because a JPA
     * native query cannot be batched. The session is flushed first, as a native query would, so rows this
     * transaction persisted before (a new run) are written before the items that refer to them.
     */
    public void enqueue(Collection<NewQueueItem> items, Instant now) {
        if (items.isEmpty()) {
            return;
        }
        em.flush();
        em.unwrap(Session.class).doWork(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(ENQUEUE_SQL)) {
                for (NewQueueItem item : items) {
                    bindItem(insert, 0, item);
                    SqlTimestamps.bind(insert, 12, item.availableAt());
                    SqlTimestamps.bind(insert, 13, now);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
        });
    }

    private static final MultiRowInsert ENQUEUE_LEASED = new MultiRowInsert("""
            INSERT INTO eec_queue_item (kind, tenant, tier, run_id, node_id, attempt, handler, pool, task_key,
                                        payload, requeue_count, available_at, created_at, lease_token, lease_owner, deliveries)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?, ?, ?, ?, 1)
            ON CONFLICT (task_key) WHERE task_key IS NOT NULL DO NOTHING
            RETURNING id, task_key""");

    /** A task inserted already leased to {@code owner} until {@code expires} under {@code token} (eager dispatch). */
    public record LeasedItem(NewQueueItem item, UUID token, String owner, Instant expires) {

        /** The tasks, each under a fresh lease token. */
        public static List<LeasedItem> of(List<NewQueueItem> tasks, String owner, Instant expires) {
            List<LeasedItem> leased = new ArrayList<>(tasks.size());
            tasks.forEach(task -> leased.add(new LeasedItem(task, UUID.randomUUID(), owner, expires)));
            return leased;
        }

        /** The task as a claim would have returned it, once inserted under {@code id}. */
        public QueueItem inserted(long id) {
            return new QueueItem(id, item.kind(), item.tenant(), item.tier(), item.runId(), item.nodeId(), item.attempt(),
                    item.handler(), item.pool(), item.payload(), item.requeueCount(), token, expires, 1);
        }
    }

    /** {@link #enqueueLeased(List, Instant)}, each task under a fresh token, its lease ending {@code lease} from now. */
    public List<QueueItem> enqueueLeased(List<NewQueueItem> tasks, String owner, Duration lease, Instant now) {
        return enqueueLeased(LeasedItem.of(tasks, owner, now.plus(lease)), now);
    }

    /**
     * Inserts tasks already leased, as if claimed the moment they were queued: the pod that dispatched them runs them
     * itself, without a claim (see fairness.md, "Eager dispatch"). One multi-row INSERT (its ids are needed back, see
     * {@link MultiRowInsert}); a task whose key is already queued is skipped and not returned.
     */
    public List<QueueItem> enqueueLeased(List<LeasedItem> tasks, Instant now) {
        if (tasks.isEmpty()) {
            return List.of();
        }
        em.flush();
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(ENQUEUE_LEASED.sql(tasks.size()))) {
                for (int i = 0; i < tasks.size(); i++) {
                    LeasedItem task = tasks.get(i);
                    int p = ENQUEUE_LEASED.offset(i);
                    bindItem(insert, p, task.item());
                    SqlTimestamps.bind(insert, p + 12, task.expires());
                    SqlTimestamps.bind(insert, p + 13, now);
                    insert.setObject(p + 14, task.token());
                    insert.setString(p + 15, task.owner());
                }
                java.util.Map<String, Long> ids = new java.util.HashMap<>();
                try (ResultSet keys = insert.executeQuery()) {
                    while (keys.next()) {
                        ids.put(keys.getString(2), keys.getLong(1));
                    }
                }
                List<QueueItem> leased = new ArrayList<>(ids.size());
                for (LeasedItem task : tasks) {
                    Long id = ids.get(task.item().taskKey());
                    if (id != null) {
                        leased.add(task.inserted(id));
                    }
                }
                return leased;
            }
        });
    }

    /**
     * Claims up to {@code max} due coordinator items (wakeups, timers) in one statement, oldest due first.
     * Rows another claimer holds are skipped, not waited for. The claim pushes {@code available_at} to the
     * lease expiry and issues a fresh lease token, so a crashed claimer's rows come back by themselves.
     * Tasks are claimed fairly by {@link TaskClaim} instead.
     */
    @SuppressWarnings("unchecked")
    public List<QueueItem> claim(List<QueueKind> kinds, String owner, int max, Duration lease, Instant now) {
        if (kinds.contains(QueueKind.TASK)) {
            throw new IllegalArgumentException("tasks are claimed fairly, through claimTasks");
        }
        // Its last step finds the claimed rows by id = ANY(...): on the queue's ever stale statistics, a sequential
        // scan over every dead row the queue's churn left (see PlannerSettings) unless told to use the primary key.
        plannerSettings.forThisTransaction();
        // Kinds are our own enum names, safe to inline.
        String kindList = kinds.stream().map(k -> "'" + k.name() + "'").collect(java.util.stream.Collectors.joining(", "));
        var query = em.createNativeQuery(coordinatorClaimSql(kindList))
                .setParameter("now", now)
                .setParameter("max", max)
                .setParameter("leaseExpiry", now.plus(lease))
                .setParameter("owner", owner);
        List<Object[]> rows = query.getResultList();
        List<QueueItem> items = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            items.add(toItem(row));
        }
        return items;
    }

    /** {@link #ack}'s statement (also EXPLAINed by QueueIdLookupPlanTest). */
    static final String ACK = "DELETE FROM eec_queue_item WHERE id = ?1 AND lease_token = ?2";

    /** Removes a claimed item if the lease is still ours; false when it was lost or already gone. */
    public boolean ack(long id, UUID leaseToken) {
        return em.createNativeQuery(ACK)
                .setParameter(1, id)
                .setParameter(2, leaseToken)
                .executeUpdate() == 1;
    }

    /** Moves a run's queued items to another tier (an operator changed the run's tier). */
    public void retier(UUID runId, String tier) {
        em.createNativeQuery("UPDATE eec_queue_item SET tier = ?2 WHERE run_id = ?1")
                .setParameter(1, runId)
                .setParameter(2, tier)
                .executeUpdate();
    }

    /**
     * The coordinator claim, also EXPLAINed by the tests (named parameters {@code :now}, {@code :max},
     * {@code :leaseExpiry}, {@code :owner}). The UPDATE
     * names the claimed rows by {@code id = ANY(...)} rather than joining them: a queue table's statistics are stale
     * by nature (it empties and refills between two autovacuum passes), and a join lets a planner that believes the
     * table holds one row scan all of it once per claimed row.
     */
    static String coordinatorClaimSql(String kindList) {
        return """
                WITH claimable AS MATERIALIZED (
                    SELECT id FROM eec_queue_item
                     WHERE kind IN (%s) AND available_at <= :now
                     ORDER BY available_at, id
                     LIMIT :max
                     FOR UPDATE SKIP LOCKED)
                UPDATE eec_queue_item q
                   SET available_at = :leaseExpiry, lease_token = gen_random_uuid(), lease_owner = :owner, deliveries = q.deliveries + 1
                 WHERE q.id = ANY(ARRAY(SELECT id FROM claimable))
                RETURNING %s""".formatted(kindList, prefixed());
    }

    /**
     * Takes a node's attempts up to {@code throughAttempt} out of play (an operator retried or skipped it): rows still
     * waiting for a claim are deleted, and a claimed row's lease is revoked (a token nobody holds), so its worker's next
     * heartbeat or report is refused while the row, still counting against its pool since that worker may still be
     * running, is reaped when the lease would have ended. Two statements in this order on purpose: a claim that held
     * a row while the DELETE waited for it has committed by the time the UPDATE reads, so the UPDATE revokes it.
     */
    public void supersedeTasks(UUID runId, String node, int throughAttempt) {
        em.createNativeQuery("""
                        DELETE FROM eec_queue_item
                         WHERE run_id = ?1 AND kind = 'TASK' AND node_id = ?2 AND attempt <= ?3 AND lease_token IS NULL""")
                .setParameter(1, runId)
                .setParameter(2, node)
                .setParameter(3, throughAttempt)
                .executeUpdate();
        em.createNativeQuery("""
                        UPDATE eec_queue_item SET lease_token = gen_random_uuid()
                         WHERE run_id = ?1 AND kind = 'TASK' AND node_id = ?2 AND attempt <= ?3 AND lease_token IS NOT NULL""")
                .setParameter(1, runId)
                .setParameter(2, node)
                .setParameter(3, throughAttempt)
                .executeUpdate();
    }

    /** Finished runs' leftover tasks and timers, in one statement. */
    public int deleteForRuns(Collection<UUID> runIds) {
        if (runIds.isEmpty()) {
            return 0;
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement delete = connection.prepareStatement(
                    "DELETE FROM eec_queue_item WHERE run_id = ANY(?) AND kind <> 'WAKEUP'")) {
                delete.setArray(1, connection.createArrayOf("uuid", runIds.toArray()));
                return delete.executeUpdate();
            }
        });
    }

    /**
     * Every queue row of runs retention deletes: stray wakeups, timers, tasks and dead letters alike. Through
     * ix_queue_item_run; the caller holds the runs locked, so nothing new is queued for them meanwhile.
     */
    public int deleteEverythingOfRuns(Collection<UUID> runIds) {
        if (runIds.isEmpty()) {
            return 0;
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM eec_queue_item WHERE run_id = ANY(?)")) {
                delete.setArray(1, connection.createArrayOf("uuid", runIds.toArray()));
                return delete.executeUpdate();
            }
        });
    }

    /**
     * The predicate "nothing of this run is queued" (no task, timer or wakeup, dead-lettered ones included), for a
     * statement of the run's owner that must decide it in SQL (the watchdog's scan); {@code runId} names the column.
     */
    public static String nothingQueuedFor(String runId) {
        return "NOT EXISTS (SELECT 1 FROM eec_queue_item q WHERE q.run_id = " + runId + ")";
    }

    /**
     * The INSERT of queue items from bound arrays, for a statement of another owner that writes them with its own rows
     * in one round trip (a group of API starts: {@code RunRows.START}). It inserts only the items of runs that
     * {@code runsWritten} (a CTE of that statement with a {@code run_id} column) returned, skips a key already queued
     * as {@link #enqueue} does, and returns {@code id, task_key, lease_token} of what it inserted. Its parameters are
     * bound by {@link #bindItemArrays}.
     */
    public static String insertItemsFromArrays(String runsWritten) {
        return """
                INSERT INTO eec_queue_item (kind, tenant, tier, run_id, node_id, attempt, handler, pool, task_key, payload,
                                            requeue_count, available_at, created_at, lease_token, lease_owner, deliveries)
                SELECT q.kind, q.tenant, q.tier, q.run_id, q.node_id, q.attempt, q.handler, q.pool, q.task_key,
                       CAST(q.payload AS jsonb), q.requeue_count, q.available_at, q.created_at, q.lease_token,
                       q.lease_owner, q.deliveries
                  FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS uuid[]),
                              CAST(? AS text[]), CAST(? AS integer[]), CAST(? AS text[]), CAST(? AS text[]),
                              CAST(? AS text[]), CAST(? AS text[]), CAST(? AS integer[]), CAST(? AS timestamptz[]),
                              CAST(? AS timestamptz[]), CAST(? AS uuid[]), CAST(? AS text[]), CAST(? AS integer[]))
                       AS q(kind, tenant, tier, run_id, node_id, attempt, handler, pool, task_key, payload, requeue_count,
                            available_at, created_at, lease_token, lease_owner, deliveries)
                 WHERE q.run_id IN (SELECT run_id FROM %s)
                ON CONFLICT (task_key) WHERE task_key IS NOT NULL DO NOTHING
                RETURNING id, task_key, lease_token""".formatted(runsWritten);
    }

    /**
     * Binds {@link #insertItemsFromArrays}'s parameters from {@code after + 1} on: {@code queued} unleased, due at their
     * own time, and {@code leased} as {@link #enqueueLeased} inserts them; all queued at {@code now}. Returns the index
     * of the last parameter bound.
     */
    public static int bindItemArrays(PreparedStatement statement, int after, List<NewQueueItem> queued,
                                     List<LeasedItem> leased, Instant now) throws java.sql.SQLException {
        int n = queued.size() + leased.size();
        Object[][] columns = new Object[16][n];
        String queuedAt = SqlTimestamps.text(now);
        for (int i = 0; i < n; i++) {
            LeasedItem lease = i < queued.size() ? null : leased.get(i - queued.size());
            NewQueueItem item = lease == null ? queued.get(i) : lease.item();
            Object[] row = {item.kind().name(), item.tenant(), item.tier(), item.runId(), item.nodeId(), item.attempt(),
                    item.handler(), item.pool(), item.taskKey(), item.payload(), item.requeueCount(),
                    SqlTimestamps.text(lease == null ? item.availableAt() : lease.expires()), queuedAt,
                    lease == null ? null : lease.token(), lease == null ? null : lease.owner(), lease == null ? 0 : 1};
            for (int c = 0; c < row.length; c++) {
                columns[c][i] = row[c];
            }
        }
        String[] types = {"text", "text", "text", "uuid", "text", "integer", "text", "text", "text", "text", "integer",
                "text", "text", "uuid", "text", "integer"};
        java.sql.Connection connection = statement.getConnection();
        for (int c = 0; c < types.length; c++) {
            statement.setArray(after + 1 + c, connection.createArrayOf(types[c], columns[c]));
        }
        return after + types.length;
    }

    /** A finished run's leftover tasks and timers can never matter again. */
    public int deleteForRun(UUID runId) {
        return em.createNativeQuery("DELETE FROM eec_queue_item WHERE run_id = ?1 AND kind <> 'WAKEUP'")
                .setParameter(1, runId)
                .executeUpdate();
    }

    /**
     * The first eleven columns of both INSERTs, in their order (what the item itself says), bound from parameter
     * {@code base + 1} on.
     */
    private static void bindItem(PreparedStatement insert, int base, NewQueueItem item) throws java.sql.SQLException {
        insert.setString(base + 1, item.kind().name());
        insert.setString(base + 2, item.tenant());
        insert.setString(base + 3, item.tier());
        insert.setObject(base + 4, item.runId());
        insert.setString(base + 5, item.nodeId());
        insert.setInt(base + 6, item.attempt());
        insert.setString(base + 7, item.handler());
        insert.setString(base + 8, item.pool());
        insert.setString(base + 9, item.taskKey());
        insert.setString(base + 10, item.payload());
        insert.setInt(base + 11, item.requeueCount());
    }

    /** The item columns prefixed with {@code q.}, for a RETURNING clause (read back by {@link #toItem}). */
    static String prefixed() {
        StringBuilder out = new StringBuilder();
        for (String column : COLUMNS.split(", ")) {
            out.append(out.length() == 0 ? "" : ", ").append("q.").append(column);
        }
        return out.toString();
    }

    static QueueItem toItem(Object[] row) {
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
                SqlTimestamps.toInstant(row[12]),
                ((Number) row[13]).intValue());
    }

}
