package dev.ductor.database;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;

/**
 * Tells PostgreSQL, for the rest of the current transaction, to find rows through indexes. For transactions whose
 * every statement looks rows up by key (primary key, run id, queue item ids), where a sequential scan is never the
 * right plan once the tables hold more than a page or two.
 *
 * <p>Why a planner setting at all: on a young database (fresh install, or right after a bulk load) the tables have
 * no statistics yet. The first plans of a server-prepared statement are made while the table is a few pages, a
 * sequential scan is the cheapest plan then, and the plan cache keeps that generic plan until the table is next
 * analyzed. Measured with {@code bench/run.sh chain3} on a fresh database: the group commit's run lookup
 * ({@code run_id = ANY(?)}) stayed a sequential scan over 3,500 rows for the whole run, 0.5 ms a call and growing,
 * and the queue's {@code run_id = ANY(?)} delete likewise. {@code SET LOCAL} ends with the transaction, so no
 * other statement on the pooled connection is affected; a plan that has no index to use still runs, just costed
 * higher.
 *
 * <p>The same transactions take the statement's generic plan at once ({@code plan_cache_mode}): for a key lookup by
 * {@code = ANY(?)} the planner otherwise re-plans every execution, since its custom plan, costed for the array at
 * hand, always looks cheaper than the generic one costed for ten elements. Measured with {@code pg_stat_statements}
 * under chain3: planning cost as much as executing for the group commit's reads and deletes, and the fair task claim
 * was re-planned on every call in one run (547 ms of planning for 761 claims) and not in the next.
 *
 * <p>The task claim runs under both settings too: its last step fetches the claimed rows by {@code id = ANY(...)}, and
 * its generic plan, made while the queue looked a dozen rows long, was a sequential scan. The queue table churns (every
 * step's row is inserted and deleted within milliseconds), so between vacuums it held 300-odd pages of dead rows for a
 * dozen live ones: {@code auto_explain} under chain3 showed that scan reading 334 pages, a third of each claim's time.
 *
 * <p>Bitmap scans are off too: a bitmap scan reads every index entry that matches and sorts what it found, where an
 * ordered index scan stops at its {@code LIMIT}. On the same stale statistics the fair claim's skip scan and its
 * oldest-first pick ran as bitmap scans, each reading all 11,304 entries of a backlog (dead ones included) to return
 * one flow and eight tasks: every claim slower as the backlog grew, so the backlog grew faster. A key lookup by
 * {@code = ANY(...)} loses nothing by it: an index scan takes the array's keys in turn.
 */
@ApplicationScoped
public class IndexLookups {

    @Inject EntityManager em;

    /** Call first in the transaction, before any statement whose plan it should shape. */
    public void forThisTransaction() {
        em.unwrap(Session.class).doWork(connection -> {
            try (var statement = connection.createStatement()) {
                statement.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;"
                        + " SET LOCAL plan_cache_mode = force_generic_plan");
            }
        });
    }
}
