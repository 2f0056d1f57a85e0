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
 * analyzed. On a fresh database the group commit's run lookup ({@code run_id = ANY(?)}) then stays a sequential scan
 * for good, slower with every run the table gains (docs/bench-journal/chain3.md has the plans),
 * and the queue's {@code run_id = ANY(?)} delete likewise. {@code SET LOCAL} ends with the transaction, so no
 * other statement on the pooled connection is affected; a plan that has no index to use still runs, just costed
 * higher.
 *
 * <p>The same transactions take the statement's generic plan at once ({@code plan_cache_mode}): for a key lookup by
 * {@code = ANY(?)} the planner otherwise re-plans every execution, since its custom plan, costed for the array at
 * hand, always looks cheaper than the generic one costed for ten elements. Planning a key lookup costs as much as
 * executing it, and whether the fair task claim is re-planned on every call would otherwise be left to the planner's
 * guess of the moment.
 *
 * <p>The task claim runs under both settings too: its last step fetches the claimed rows by {@code id = ANY(...)}, and
 * its generic plan, made while the queue looked a dozen rows long, was a sequential scan. The queue table churns (every
 * step's row is inserted and deleted within milliseconds), so between vacuums it holds far more pages of dead rows than
 * of live ones, and a sequential scan reads every one of them on every claim.
 *
 * <p>Bitmap scans are off too: a bitmap scan reads every index entry that matches and sorts what it found, where an
 * ordered index scan stops at its {@code LIMIT}. On the same stale statistics the fair claim's skip scan and its
 * oldest-first pick ran as bitmap scans, each reading every entry of a backlog (dead ones included) to return
 * one flow and eight tasks: every claim slower as the backlog grew, so the backlog grew faster. A key lookup by
 * {@code = ANY(...)} loses nothing by it: an index scan takes the array's keys in turn.
 */
@ApplicationScoped
public class PlannerSettings {

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
