package dev.ductor.queue;

import dev.ductor.config.SqlTimestamps;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The PostgreSQL queue. Raw SQL on purpose: the claim must be one statement with
 * {@code FOR UPDATE SKIP LOCKED} (JPQL has no SKIP LOCKED), and enqueueing needs {@code ON CONFLICT}
 * for keyed items. Every method joins the caller's transaction, so a tick's effects commit with its state.
 * (A task claim that may take pooled tasks locks their pools' rows first; see {@link #claimTasks}.)
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
                OffsetDateTime created = now.atOffset(ZoneOffset.UTC);
                for (NewQueueItem item : items) {
                    bindItem(insert, item);
                    insert.setObject(12, item.availableAt().atOffset(ZoneOffset.UTC));
                    insert.setObject(13, created);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
        });
    }

    private static final String ENQUEUE_LEASED_SQL = """
            INSERT INTO eec_queue_item (kind, tenant, tier, run_id, node_id, attempt, handler, pool, task_key,
                                        payload, requeue_count, available_at, created_at, lease_token, lease_owner, deliveries)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?, ?, ?, ?, 1)
            ON CONFLICT (task_key) WHERE task_key IS NOT NULL DO NOTHING""";

    /**
     * Inserts tasks already leased to {@code owner}, as if claimed the moment they were queued: the pod that
     * dispatched them runs them itself, without a claim (see fairness.md, "Eager dispatch"). One JDBC batch; a task
     * whose key is already queued is skipped and not returned.
     */
    public List<QueueItem> enqueueLeased(List<NewQueueItem> tasks, String owner, Duration lease, Instant now) {
        if (tasks.isEmpty()) {
            return List.of();
        }
        em.flush();
        return em.unwrap(Session.class).doReturningWork(connection -> {
            Instant expires = now.plus(lease);
            List<UUID> tokens = new ArrayList<>(tasks.size());
            try (PreparedStatement insert = connection.prepareStatement(ENQUEUE_LEASED_SQL, new String[] {"id", "task_key"})) {
                OffsetDateTime created = now.atOffset(ZoneOffset.UTC);
                for (NewQueueItem item : tasks) {
                    UUID token = UUID.randomUUID();
                    tokens.add(token);
                    bindItem(insert, item);
                    insert.setObject(12, expires.atOffset(ZoneOffset.UTC));
                    insert.setObject(13, created);
                    insert.setObject(14, token);
                    insert.setString(15, owner);
                    insert.addBatch();
                }
                insert.executeBatch();
                java.util.Map<String, Long> ids = new java.util.HashMap<>();
                try (ResultSet keys = insert.getGeneratedKeys()) {
                    while (keys.next()) {
                        ids.put(keys.getString(2), keys.getLong(1));
                    }
                }
                List<QueueItem> leased = new ArrayList<>(ids.size());
                for (int i = 0; i < tasks.size(); i++) {
                    NewQueueItem item = tasks.get(i);
                    Long id = ids.get(item.taskKey());
                    if (id != null) {
                        leased.add(new QueueItem(id, item.kind(), item.tenant(), item.tier(), item.runId(), item.nodeId(),
                                item.attempt(), item.handler(), item.pool(), item.payload(), item.requeueCount(),
                                tokens.get(i), expires, 1));
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

    /** Extends a lease still held with this token (by this tenant, unless null); false when it was lost. */
    public boolean extendLease(String tenant, long id, UUID leaseToken, Instant until) {
        return em.createNativeQuery("""
                        UPDATE eec_queue_item SET available_at = ?3
                         WHERE id = ?1 AND lease_token = ?2 AND (CAST(?4 AS text) IS NULL OR tenant = ?4)""")
                .setParameter(1, id)
                .setParameter(2, leaseToken)
                .setParameter(3, until)
                .setParameter(4, tenant)
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
     * The coordinator claim, also EXPLAINed by the tests: ?1 now, ?2 max, ?3 lease expiry, ?4 owner. The UPDATE
     * names the claimed rows by {@code id = ANY(...)} rather than joining them: a queue table's statistics are stale
     * by nature (it empties and refills between two autovacuum passes), and a join lets a planner that believes the
     * table holds one row scan all of it once per claimed row.
     */
    static String coordinatorClaimSql(String kindList) {
        return """
                WITH claimable AS MATERIALIZED (
                    SELECT id FROM eec_queue_item
                     WHERE kind IN (%s) AND available_at <= ?1
                     ORDER BY available_at, id
                     LIMIT ?2
                     FOR UPDATE SKIP LOCKED)
                UPDATE eec_queue_item q
                   SET available_at = ?3, lease_token = gen_random_uuid(), lease_owner = ?4, deliveries = q.deliveries + 1
                 WHERE q.id = ANY(ARRAY(SELECT id FROM claimable))
                RETURNING %s""".formatted(kindList, prefixed());
    }

    /**
     * Claims up to {@code max} unclaimed due tasks fairly: weighted between tiers and even between the tenants
     * of a tier, by a lottery drawn per claim (see fairness.md beside this class). {@code handlers} and
     * {@code pool} narrow what this worker can run; {@code tenant} scopes an external worker to its own tenant
     * (null: any tenant, for in-process workers). A task is handed out once (unclaimed rows only); an expired
     * task lease is the {@code LeaseReaper}'s, which turns it into a failed attempt so the retry policy decides,
     * instead of silently running it again.
     *
     * <p>Tasks of a pool count against its capacity across the fleet. The claim first locks, in (tenant, name)
     * order, the rows of the pools that have due tasks for this worker and look open (not paused, below
     * capacity); when there are none, which is the whole story for unpooled work, the claim is the one
     * statement of {@link #taskClaimSql}. Otherwise {@link #pooledTaskClaimSql} runs in a fresh snapshot taken
     * after the locks were granted, so it counts every lease a previous claimer of those pools committed, and
     * takes at most {@code capacity - leased} tasks of each. Hence the transaction: the pool locks must last
     * until the claim commits, so this refuses to run outside one. It must be READ COMMITTED (PostgreSQL's
     * default, and Ductor's): under REPEATABLE READ the second statement would reuse the first one's snapshot,
     * taken before the lock was granted.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    @SuppressWarnings("unchecked")
    public List<QueueItem> claimTasks(Collection<String> handlers, String tenant, String pool, String owner, int max,
                                      Duration lease, Instant now, TierWeights weights) {
        String handlerList = String.join("\u001f", handlers);
        TaskFilters lockFilters = new TaskFilters(2, 3, tenant, pool);
        var lock = em.createNativeQuery(poolLockSql(lockFilters.sql()))
                .setParameter(1, now)
                .setParameter(2, handlerList);
        List<Object[]> lockedPools = lockFilters.bind(lock).getResultList();

        TaskFilters filters = new TaskFilters(5, lockedPools.isEmpty() ? 6 : 7, tenant, pool);
        var query = em.createNativeQuery(lockedPools.isEmpty()
                        ? taskClaimSql(filters.sql(), weights.sqlValues())
                        : pooledTaskClaimSql(filters.sql(), weights.sqlValues()))
                .setParameter(1, now)
                .setParameter(2, max)
                .setParameter(3, now.plus(lease))
                .setParameter(4, owner)
                .setParameter(5, handlerList);
        if (!lockedPools.isEmpty()) {
            ArrayNode locked = JsonNodeFactory.instance.arrayNode();
            for (Object[] row : lockedPools) {
                locked.addObject().put("tenant", (String) row[0]).put("pool", (String) row[1]);
            }
            query.setParameter(6, locked.toString());
        }
        List<Object[]> rows = filters.bind(query).getResultList();
        return rows.stream().map(QueueRepository::toItem).toList();
    }

    /**
     * The worker's narrowing of a task claim, numbered from {@code handlers} (always present) and then
     * {@code firstOptional} on, without gaps, for the optional tenant and pool.
     */
    private record TaskFilters(int handlersParam, int firstOptional, String tenant, String pool) {

        String sql() {
            int next = firstOptional;
            String sql = " AND handler = ANY(string_to_array(?" + handlersParam + ", chr(31)))";
            if (tenant != null) {
                sql += " AND tenant = ?" + next++;
            }
            if (pool != null) {
                sql += " AND pool = ?" + next;
            }
            return sql;
        }

        jakarta.persistence.Query bind(jakarta.persistence.Query query) {
            int next = firstOptional;
            if (tenant != null) {
                query.setParameter(next++, tenant);
            }
            if (pool != null) {
                query.setParameter(next, pool);
            }
            return query;
        }
    }

    /**
     * Locks the pools this claim may take tasks from, in (tenant, name) order so that claimers never deadlock:
     * those with unclaimed due tasks matching the filters (a skip scan over the pooled partial index, one probe
     * per pool) that are not paused and not yet full. Whether full is judged on this statement's snapshot, which
     * may be older than the lock; that only ever skips a pool for one round, the claim itself counts afresh.
     * ?1 now, ?2 handlers; no rows and no locks when no pooled task is due.
     */
    public static String poolLockSql(String filters) {
        return """
                WITH RECURSIVE pooled(tenant, pool) AS (
                    (SELECT tenant, pool FROM eec_queue_item
                      WHERE kind = 'TASK' AND lease_token IS NULL AND pool IS NOT NULL AND available_at <= ?1 %1$s
                      ORDER BY tenant, pool LIMIT 1)
                  UNION ALL
                    SELECT nxt.tenant, nxt.pool FROM pooled d CROSS JOIN LATERAL (
                        SELECT tenant, pool FROM eec_queue_item
                         WHERE kind = 'TASK' AND lease_token IS NULL AND pool IS NOT NULL AND available_at <= ?1 %1$s
                           AND (tenant, pool) > (d.tenant, d.pool)
                         ORDER BY tenant, pool LIMIT 1) nxt
                )
                SELECT p.tenant, p.name FROM eec_pool p JOIN pooled d ON d.tenant = p.tenant AND d.pool = p.name
                 WHERE NOT p.paused
                   AND p.capacity > (SELECT count(*) FROM eec_queue_item l
                                      WHERE l.kind = 'TASK' AND l.lease_token IS NOT NULL AND l.pool IS NOT NULL
                                        AND l.tenant = p.tenant AND l.pool = p.name)
                 ORDER BY p.tenant, p.name
                   FOR UPDATE OF p""".formatted(filters);
    }

    /**
     * The distinct (tier, tenant) pairs with unclaimed due unpooled tasks, as a skip scan over the partial index:
     * the first CTE of both task claims. {@code %1$s} takes the claim's filters.
     */
    private static final String UNPOOLED_FLOWS = """
                WITH RECURSIVE flows(tier, tenant) AS (
                    (SELECT tier, tenant FROM eec_queue_item
                      WHERE kind = 'TASK' AND lease_token IS NULL AND pool IS NULL AND available_at <= ?1 %1$s
                      ORDER BY tier, tenant LIMIT 1)
                  UNION ALL
                    SELECT nxt.tier, nxt.tenant FROM flows f CROSS JOIN LATERAL (
                        SELECT tier, tenant FROM eec_queue_item
                         WHERE kind = 'TASK' AND lease_token IS NULL AND pool IS NULL AND available_at <= ?1 %1$s
                           AND (tier, tenant) > (f.tier, f.tenant)
                         ORDER BY tier, tenant LIMIT 1) nxt
                ),
                """;

    /**
     * The last step of both task claims: lock the chosen rows in turn order, skipping rows another claimer holds,
     * and lease them. {@code %3$s} takes the returned columns, {@code %4$s} the CTE of chosen {@code (id, turn)}.
     * That CTE is declared {@code MATERIALIZED}, computed once: inlined, the planner is free to drive the join from
     * the queue table, and a queue table's statistics are always stale (it empties and refills between two
     * autovacuum passes). Believing it holds one row, PostgreSQL then scanned the whole table and re-ran the
     * lottery's index scans once per row: 87 ms a claim with 900 due tasks, which stalled a chain3 benchmark to
     * 3 runs/s until autovacuum came by. So nothing here lets the planner choose how to reach the queue table: the
     * chosen rows are visited in turn order by primary key (a LATERAL lookup per candidate, which is also where
     * each row is locked, so {@code LIMIT} stops locking once it has {@code max}), and the UPDATE names its rows by
     * {@code id = ANY(...)}. See {@link #coordinatorClaimSql} for the same rule.
     */
    private static final String LEASE_IN_TURN = """
                claimable AS MATERIALIZED (
                    SELECT l.id FROM (SELECT id, turn FROM %4$s ORDER BY turn) c
                     CROSS JOIN LATERAL (
                         SELECT q.id FROM eec_queue_item q
                          WHERE q.id = c.id AND q.lease_token IS NULL
                            FOR UPDATE OF q SKIP LOCKED) l
                     LIMIT ?2)
                UPDATE eec_queue_item q
                   SET available_at = ?3, lease_token = gen_random_uuid(), lease_owner = ?4, deliveries = q.deliveries + 1
                 WHERE q.id = ANY(ARRAY(SELECT id FROM claimable))
                RETURNING %3$s""";

    /**
     * The fair claim of unpooled tasks, also EXPLAINed by the tests: ?1 now, ?2 max, ?3 lease expiry, ?4 owner,
     * ?5 handlers. Pooled tasks are not in its partial index and never claimed by it.
     */
    static String taskClaimSql(String filters, String tierWeights) {
        return (UNPOOLED_FLOWS + """
                shares AS (
                    SELECT f.tier, f.tenant,
                           COALESCE(w.weight, 1.0) / count(*) OVER (PARTITION BY f.tier) AS share,
                           -ln(1.0 - random()) AS phase
                      FROM flows f LEFT JOIN (VALUES %2$s) AS w(tier, weight) ON w.tier = f.tier
                ),
                candidates AS MATERIALIZED (
                    SELECT c.id, (c.rank - 1 + s.phase) / s.share AS turn
                      FROM shares s CROSS JOIN LATERAL (
                          SELECT q.id, row_number() OVER (ORDER BY q.available_at, q.id) AS rank
                            FROM eec_queue_item q
                           WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.pool IS NULL AND q.available_at <= ?1 %1$s
                             AND q.tier = s.tier AND q.tenant = s.tenant
                           ORDER BY q.available_at, q.id
                           LIMIT ?2) c
                ),
                """ + LEASE_IN_TURN).formatted(filters, tierWeights, prefixed(), "candidates");
    }

    /**
     * The fair claim when pools are locked (?6, a JSON array of {tenant, pool}): the unpooled flows as in
     * {@link #taskClaimSql}, and the locked pools' tasks with them. Each locked pool has {@code room}, its
     * capacity less its leased tasks, counted in this statement's snapshot, which is newer than the lock.
     * A pool's oldest due tasks (per tier, at most {@code max}) join their (tier, tenant) flow, the flows draw
     * their turns as usual, and a window over each pool's candidates in turn order keeps its first
     * {@code room}, before the {@code FOR UPDATE SKIP LOCKED} step (which cannot sit beside a window function).
     * Skipping a locked row only ever claims fewer, so no pool ends above its capacity.
     *
     * <p>The pool's tasks of one tier are selected by a range that is an equality, and ordered by the whole
     * pooled index, on purpose: with a plain equality the order would be just (available_at, id), which
     * {@code ix_queue_item_claim} offers too, and with one pool's big backlog skewing the statistics the planner
     * would walk every due task of the queue through that index instead of the one pool's slice of this one.
     * ?1 now, ?2 max, ?3 lease expiry, ?4 owner, ?5 handlers, ?6 locked pools.
     */
    public static String pooledTaskClaimSql(String filters, String tierWeights) {
        return (UNPOOLED_FLOWS + """
                open_pools AS (
                    SELECT p.tenant, p.name AS pool,
                           p.capacity - (SELECT count(*) FROM eec_queue_item l
                                          WHERE l.kind = 'TASK' AND l.lease_token IS NOT NULL AND l.pool IS NOT NULL
                                            AND l.tenant = p.tenant AND l.pool = p.name) AS room
                      FROM eec_pool p
                      JOIN jsonb_to_recordset(CAST(?6 AS jsonb)) AS k(tenant text, pool text)
                        ON k.tenant = p.tenant AND k.pool = p.name
                     WHERE NOT p.paused
                ),
                pool_tiers(tenant, pool, tier, room) AS (
                    SELECT o.tenant, o.pool, t.tier, o.room FROM open_pools o CROSS JOIN LATERAL (
                        SELECT q.tier FROM eec_queue_item q
                         WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.pool IS NOT NULL AND q.available_at <= ?1 %1$s
                           AND q.tenant = o.tenant AND q.pool = o.pool
                         ORDER BY q.tier LIMIT 1) t
                     WHERE o.room > 0
                  UNION ALL
                    SELECT pt.tenant, pt.pool, t.tier, pt.room FROM pool_tiers pt CROSS JOIN LATERAL (
                        SELECT q.tier FROM eec_queue_item q
                         WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.pool IS NOT NULL AND q.available_at <= ?1 %1$s
                           AND q.tenant = pt.tenant AND q.pool = pt.pool AND q.tier > pt.tier
                         ORDER BY q.tier LIMIT 1) t
                ),
                pooled AS (
                    SELECT c.id, pt.tier, pt.tenant, pt.pool, pt.room, c.available_at
                      FROM pool_tiers pt CROSS JOIN LATERAL (
                          SELECT q.id, q.available_at FROM eec_queue_item q
                           WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.pool IS NOT NULL AND q.available_at <= ?1 %1$s
                             AND (q.tenant, q.pool, q.tier) >= (pt.tenant, pt.pool, pt.tier)
                             AND (q.tenant, q.pool, q.tier) <= (pt.tenant, pt.pool, pt.tier)
                           ORDER BY q.tenant, q.pool, q.tier, q.available_at, q.id
                           LIMIT ?2) c
                ),
                shares AS (
                    SELECT f.tier, f.tenant,
                           COALESCE(w.weight, 1.0) / count(*) OVER (PARTITION BY f.tier) AS share,
                           -ln(1.0 - random()) AS phase
                      FROM (SELECT tier, tenant FROM flows UNION SELECT tier, tenant FROM pooled) f
                      LEFT JOIN (VALUES %2$s) AS w(tier, weight) ON w.tier = f.tier
                ),
                unpooled AS (
                    SELECT c.id, s.tier, s.tenant, c.available_at
                      FROM shares s CROSS JOIN LATERAL (
                          SELECT q.id, q.available_at FROM eec_queue_item q
                           WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.pool IS NULL AND q.available_at <= ?1 %1$s
                             AND q.tier = s.tier AND q.tenant = s.tenant
                           ORDER BY q.available_at, q.id
                           LIMIT ?2) c
                ),
                ranked AS (
                    SELECT u.id, u.tier, u.tenant, u.pool, u.room,
                           row_number() OVER (PARTITION BY u.tier, u.tenant ORDER BY u.available_at, u.id) AS rank
                      FROM (SELECT id, tier, tenant, available_at, CAST(NULL AS text) AS pool, CAST(NULL AS bigint) AS room
                              FROM unpooled
                            UNION ALL
                            SELECT id, tier, tenant, available_at, pool, room FROM pooled) u
                ),
                candidates AS (
                    SELECT r.id, r.tenant, r.pool, r.room, (r.rank - 1 + s.phase) / s.share AS turn
                      FROM ranked r JOIN shares s ON s.tier = r.tier AND s.tenant = r.tenant
                     WHERE r.rank <= ?2
                ),
                within_capacity AS MATERIALIZED (
                    SELECT c.id, c.turn
                      FROM (SELECT c.*, row_number() OVER (PARTITION BY c.tenant, c.pool ORDER BY c.turn) AS pool_rank
                              FROM candidates c) c
                     WHERE c.pool IS NULL OR c.pool_rank <= c.room
                ),
                """ + LEASE_IN_TURN).formatted(filters, tierWeights, prefixed(), "within_capacity");
    }

    /** Task rows whose lease ran out, taken off the queue in one statement (the reaper decides what follows). */
    @SuppressWarnings("unchecked")
    public List<QueueItem> takeExpiredTaskLeases(Instant now, int max) {
        List<Object[]> rows = em.createNativeQuery("""
                        WITH expired AS MATERIALIZED (
                            SELECT id FROM eec_queue_item
                             WHERE kind = 'TASK' AND lease_token IS NOT NULL AND available_at <= ?1
                             ORDER BY available_at, id
                             LIMIT ?2
                             FOR UPDATE SKIP LOCKED)
                        DELETE FROM eec_queue_item q WHERE q.id = ANY(ARRAY(SELECT id FROM expired))
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

    /**
     * Deletes the task rows still leased with the given tokens (id and token at the same index), in one statement;
     * returns the ids it took. Matching ids and tokens as two sets is matching them as pairs, because a lease token
     * is a fresh random UUID issued for one row; and a single-table predicate keeps the planner from joining its
     * way through a queue table it believes empty (see {@link #coordinatorClaimSql}). A row missing from the answer was fenced off: its lease expired and it was reaped or
     * claimed again, or its run finished.
     *
     * <p>No {@code kind = 'TASK'} in the predicate, although only tasks are reported: an id names one row, and that
     * equality would let the planner pick the claim index ({@code kind, available_at, id}) and filter every task row
     * by id. The group commit runs this statement on its generic plan ({@link dev.ductor.database.IndexLookups}),
     * made while the table was young, and {@code auto_explain} under chain3 showed exactly that plan: an index scan
     * of all tasks where the primary key finds the handful reported.
     */
    public Set<Long> takeLeasedTasks(List<Long> ids, List<UUID> leaseTokens) {
        if (ids.isEmpty()) {
            return Set.of();
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            Set<Long> taken = new HashSet<>();
            try (PreparedStatement delete = connection.prepareStatement("""
                    DELETE FROM eec_queue_item
                     WHERE id = ANY(?) AND lease_token = ANY(?)
                    RETURNING id""")) {
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

    /** A finished run's leftover tasks and timers can never matter again. */
    public int deleteForRun(UUID runId) {
        return em.createNativeQuery("DELETE FROM eec_queue_item WHERE run_id = ?1 AND kind <> 'WAKEUP'")
                .setParameter(1, runId)
                .executeUpdate();
    }

    /** The first eleven columns of both INSERTs, in their order: what the item itself says. */
    private static void bindItem(PreparedStatement insert, NewQueueItem item) throws java.sql.SQLException {
        insert.setString(1, item.kind().name());
        insert.setString(2, item.tenant());
        insert.setString(3, item.tier());
        insert.setObject(4, item.runId());
        insert.setString(5, item.nodeId());
        insert.setInt(6, item.attempt());
        insert.setString(7, item.handler());
        insert.setString(8, item.pool());
        insert.setString(9, item.taskKey());
        insert.setString(10, item.payload());
        insert.setInt(11, item.requeueCount());
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
                SqlTimestamps.toInstant(row[12]),
                ((Number) row[13]).intValue());
    }

}
