package dev.ductor.queue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ductor.database.PlannerSettings;
import dev.ductor.database.NamedSql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import org.hibernate.Session;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fair claim of tasks, pooled or not (fairness.md beside this class): its SQL and its named parameters. Raw SQL on
 * purpose: the claim is one statement with {@code FOR UPDATE SKIP LOCKED}, a lottery and, for pooled tasks, the
 * pools' rows locked first ({@code eec_pool} is read here, and only read: the pool's capacity has to be counted in
 * the claim's own statement, see "Who touches what" in fairness.md).
 */
@ApplicationScoped
public class TaskClaim {

    @Inject EntityManager em;
    @Inject PlannerSettings plannerSettings;
    private final Map<String, NamedSql> statements = new ConcurrentHashMap<>();

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
    public List<QueueItem> claimTasks(Collection<String> handlers, String tenant, String pool, String owner, int max,
                                      Duration lease, Instant now, TierWeights weights) {
        Filters filters = new Filters(String.join("\u001f", handlers), tenant, pool);
        plannerSettings.forThisTransaction();
        Map<String, Object> values = new HashMap<>();
        filters.bind(values);
        values.put("now", now);
        List<Object[]> lockedPools = run(sql("lock", filters, weights), values);

        values.put("max", max);
        values.put("leaseExpiry", now.plus(lease));
        values.put("owner", owner);
        if (!lockedPools.isEmpty()) {
            ArrayNode locked = JsonNodeFactory.instance.arrayNode();
            for (Object[] row : lockedPools) {
                locked.addObject().put("tenant", (String) row[0]).put("pool", (String) row[1]);
            }
            values.put("lockedPools", locked.toString());
        }
        List<Object[]> rows = run(sql(lockedPools.isEmpty() ? "claim" : "pooled", filters, weights), values);
        return rows.stream().map(QueueRepository::toItem).toList();
    }

    /** Plain JDBC on the claim's hot path ({@link NamedSql} says why), in the caller's transaction. */
    private List<Object[]> run(NamedSql statement, Map<String, Object> values) {
        return em.unwrap(Session.class).doReturningWork(connection -> statement.query(connection, values));
    }

    /**
     * The claim's statements, assembled and parsed once per shape (which filters, which weights) rather than formatted
     * anew on every claim, work the claiming thread would otherwise repeat on every call. At most a handful of
     * shapes exist (in-process workers, and external workers with or without tenant and pool).
     */
    private NamedSql sql(String statement, Filters filters, TierWeights weights) {
        String key = statement + '|' + filters.sql() + '|' + weights.sqlValues();
        return statements.computeIfAbsent(key, k -> NamedSql.parse(switch (statement) {
            case "lock" -> poolLockSql(filters.sql());
            case "claim" -> taskClaimSql(filters.sql(), weights.sqlValues());
            default -> pooledTaskClaimSql(filters.sql(), weights.sqlValues());
        }));
    }

    /**
     * The worker's narrowing of a task claim, the same in the pool lock and in the claim: the handlers it runs (always,
     * {@code :handlers}), and its tenant and pool when it is scoped to them ({@code :tenant}, {@code :pool}).
     */
    public record Filters(String handlers, String tenant, String pool) {

        public String sql() {
            String sql = " AND handler = ANY(string_to_array(:handlers, chr(31)))";
            if (tenant != null) {
                sql += " AND tenant = :tenant";
            }
            if (pool != null) {
                sql += " AND pool = :pool";
            }
            return sql;
        }

        void bind(Map<String, Object> values) {
            values.put("handlers", handlers);
            if (tenant != null) {
                values.put("tenant", tenant);
            }
            if (pool != null) {
                values.put("pool", pool);
            }
        }
    }

    /**
     * Locks the pools this claim may take tasks from, in (tenant, name) order so that claimers never deadlock:
     * those with unclaimed due tasks matching the filters (a skip scan over the pooled partial index, one probe
     * per pool) that are not paused and not yet full. Whether full is judged on this statement's snapshot, which
     * may be older than the lock; that only ever skips a pool for one round, the claim itself counts afresh.
     * No rows and no locks when no pooled task is due.
     */
    public static String poolLockSql(String filters) {
        return """
                WITH RECURSIVE pooled(tenant, pool) AS (
                    (SELECT tenant, pool FROM eec_queue_item
                      WHERE kind = 'TASK' AND lease_token IS NULL AND pool IS NOT NULL AND available_at <= :now %1$s
                      ORDER BY tenant, pool LIMIT 1)
                  UNION ALL
                    SELECT nxt.tenant, nxt.pool FROM pooled d CROSS JOIN LATERAL (
                        SELECT tenant, pool FROM eec_queue_item
                         WHERE kind = 'TASK' AND lease_token IS NULL AND pool IS NOT NULL AND available_at <= :now %1$s
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
                      WHERE kind = 'TASK' AND lease_token IS NULL AND pool IS NULL AND available_at <= :now %1$s
                      ORDER BY tier, tenant LIMIT 1)
                  UNION ALL
                    SELECT nxt.tier, nxt.tenant FROM flows f CROSS JOIN LATERAL (
                        SELECT tier, tenant FROM eec_queue_item
                         WHERE kind = 'TASK' AND lease_token IS NULL AND pool IS NULL AND available_at <= :now %1$s
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
     * lottery's index scans once per row: each claim slower with every task due, which stalled chain3 until autovacuum
     * came by (docs/bench-journal/chain3.md). So nothing here lets the planner choose how to reach the queue table: the
     * chosen rows are visited in turn order by primary key (a LATERAL lookup per candidate, which is also where
     * each row is locked, so {@code LIMIT} stops locking once it has {@code max}), and the UPDATE names its rows by
     * {@code id = ANY(...)}. See {@link QueueRepository#coordinatorClaimSql} for the same rule.
     */
    private static final String LEASE_IN_TURN = """
                claimable AS MATERIALIZED (
                    SELECT l.id FROM (SELECT id, turn FROM %4$s ORDER BY turn) c
                     CROSS JOIN LATERAL (
                         SELECT q.id FROM eec_queue_item q
                          WHERE q.id = c.id AND q.lease_token IS NULL
                            FOR UPDATE OF q SKIP LOCKED) l
                     LIMIT :max)
                UPDATE eec_queue_item q
                   SET available_at = :leaseExpiry, lease_token = gen_random_uuid(), lease_owner = :owner, deliveries = q.deliveries + 1
                 WHERE q.id = ANY(ARRAY(SELECT id FROM claimable))
                RETURNING %3$s""";

    /**
     * The fair claim of unpooled tasks, also EXPLAINed by the tests: {@code :now}, {@code :max},
     * {@code :leaseExpiry}, {@code :owner} and the {@link Filters}. Pooled tasks are not in its partial index and never claimed by it.
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
                           WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.pool IS NULL AND q.available_at <= :now %1$s
                             AND q.tier = s.tier AND q.tenant = s.tenant
                           ORDER BY q.available_at, q.id
                           LIMIT :max) c
                ),
                """ + LEASE_IN_TURN).formatted(filters, tierWeights, QueueRepository.prefixed(), "candidates");
    }

    /**
     * The fair claim when pools are locked ({@code :lockedPools}, a JSON array of {tenant, pool}): the unpooled flows as in
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
     */
    public static String pooledTaskClaimSql(String filters, String tierWeights) {
        return (UNPOOLED_FLOWS + """
                open_pools AS (
                    SELECT p.tenant, p.name AS pool,
                           p.capacity - (SELECT count(*) FROM eec_queue_item l
                                          WHERE l.kind = 'TASK' AND l.lease_token IS NOT NULL AND l.pool IS NOT NULL
                                            AND l.tenant = p.tenant AND l.pool = p.name) AS room
                      FROM eec_pool p
                      JOIN jsonb_to_recordset(CAST(:lockedPools AS jsonb)) AS k(tenant text, pool text)
                        ON k.tenant = p.tenant AND k.pool = p.name
                     WHERE NOT p.paused
                ),
                pool_tiers(tenant, pool, tier, room) AS (
                    SELECT o.tenant, o.pool, t.tier, o.room FROM open_pools o CROSS JOIN LATERAL (
                        SELECT q.tier FROM eec_queue_item q
                         WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.pool IS NOT NULL AND q.available_at <= :now %1$s
                           AND q.tenant = o.tenant AND q.pool = o.pool
                         ORDER BY q.tier LIMIT 1) t
                     WHERE o.room > 0
                  UNION ALL
                    SELECT pt.tenant, pt.pool, t.tier, pt.room FROM pool_tiers pt CROSS JOIN LATERAL (
                        SELECT q.tier FROM eec_queue_item q
                         WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.pool IS NOT NULL AND q.available_at <= :now %1$s
                           AND q.tenant = pt.tenant AND q.pool = pt.pool AND q.tier > pt.tier
                         ORDER BY q.tier LIMIT 1) t
                ),
                pooled AS (
                    SELECT c.id, pt.tier, pt.tenant, pt.pool, pt.room, c.available_at
                      FROM pool_tiers pt CROSS JOIN LATERAL (
                          SELECT q.id, q.available_at FROM eec_queue_item q
                           WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.pool IS NOT NULL AND q.available_at <= :now %1$s
                             AND (q.tenant, q.pool, q.tier) >= (pt.tenant, pt.pool, pt.tier)
                             AND (q.tenant, q.pool, q.tier) <= (pt.tenant, pt.pool, pt.tier)
                           ORDER BY q.tenant, q.pool, q.tier, q.available_at, q.id
                           LIMIT :max) c
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
                           WHERE q.kind = 'TASK' AND q.lease_token IS NULL AND q.pool IS NULL AND q.available_at <= :now %1$s
                             AND q.tier = s.tier AND q.tenant = s.tenant
                           ORDER BY q.available_at, q.id
                           LIMIT :max) c
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
                     WHERE r.rank <= :max
                ),
                within_capacity AS MATERIALIZED (
                    SELECT c.id, c.turn
                      FROM (SELECT c.*, row_number() OVER (PARTITION BY c.tenant, c.pool ORDER BY c.turn) AS pool_rank
                              FROM candidates c) c
                     WHERE c.pool IS NULL OR c.pool_rank <= c.room
                ),
                """ + LEASE_IN_TURN).formatted(filters, tierWeights, QueueRepository.prefixed(), "within_capacity");
    }
}
