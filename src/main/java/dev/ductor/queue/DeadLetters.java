package dev.ductor.queue;

import dev.ductor.config.SqlTimestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Coordinator items of poison runs (migration V8): each failed delivery is counted on the item itself, and a parked
 * run's wakeups and timers stay in {@code eec_queue_item}, dead-lettered ({@code dead_lettered_at} set, due at
 * {@code 'infinity'} so that no claim reaches them), until an operator re-queues them. Nothing here reads the run
 * row: parking must work when that row is what cannot be read. Every method joins the caller's transaction.
 */
@ApplicationScoped
public class DeadLetters {

    /** What a run's dead letters say, for the API. */
    public record Summary(UUID runId, int items, int failedDeliveries, String lastError, Instant since) {
    }

    private static final int MAX_ERROR_LENGTH = 2000;

    @Inject EntityManager em;

    /**
     * Counts one failed delivery on the items still held with their lease tokens; returns the highest count among
     * them, or 0 when none is held any more (its lease ran out and another pod has it: its failure is not ours to count).
     */
    @SuppressWarnings("unchecked")
    public int countFailure(List<QueueItem> held, String error) {
        if (held.isEmpty()) {
            return 0;
        }
        List<Number> counts = em.createNativeQuery("""
                        UPDATE eec_queue_item SET failed_deliveries = failed_deliveries + 1, last_error = ?3
                         WHERE id IN (?1) AND lease_token IN (?2)
                        RETURNING failed_deliveries""")
                .setParameter(1, held.stream().map(QueueItem::id).toList())
                .setParameter(2, held.stream().map(QueueItem::leaseToken).toList())
                .setParameter(3, error.length() > MAX_ERROR_LENGTH ? error.substring(0, MAX_ERROR_LENGTH) : error)
                .getResultList();
        return counts.stream().mapToInt(Number::intValue).max().orElse(0);
    }

    public boolean isParked(UUID runId) {
        return !em.createNativeQuery("SELECT 1 FROM eec_queue_item WHERE run_id = ?1 AND dead_lettered_at IS NOT NULL LIMIT 1")
                .setParameter(1, runId)
                .getResultList().isEmpty();
    }

    /**
     * Dead-letters the run's wakeups and timers: those held with the given leases, and those no live lease holds
     * (never claimed, or their lease ran out). One held by another pod right now is left to it; if its tick fails
     * too, it joins them at once. Tasks are not touched: a step may still run, and its result arrives with a wakeup
     * of its own. Returns how many items were parked.
     */
    public int park(UUID runId, List<QueueItem> held, Instant now) {
        List<UUID> tokens = held.stream().map(QueueItem::leaseToken).toList();
        return em.createNativeQuery("""
                        UPDATE eec_queue_item
                           SET dead_lettered_at = ?3, available_at = 'infinity', lease_token = NULL, lease_owner = NULL
                         WHERE run_id = ?1 AND kind IN ('WAKEUP', 'TIMER') AND dead_lettered_at IS NULL
                           AND (lease_token IS NULL OR available_at <= ?3 OR lease_token IN (?2))""")
                .setParameter(1, runId)
                .setParameter(2, tokens.isEmpty() ? List.of(new UUID(0, 0)) : tokens)
                .setParameter(3, now)
                .executeUpdate();
    }

    /** The run's dead letters, if it has any and it is the tenant's. */
    public Optional<Summary> of(String tenant, UUID runId) {
        return summaries(tenant, runId, 1).stream().findFirst();
    }

    /** The tenant's parked runs, longest parked first. */
    public List<Summary> list(String tenant, int limit) {
        return summaries(tenant, null, limit);
    }

    /** Per parked run of the tenant (of one run, unless {@code runId} is null), longest parked first. */
    @SuppressWarnings("unchecked")
    private List<Summary> summaries(String tenant, UUID runId, int limit) {
        var query = em.createNativeQuery(SUMMARY + " WHERE tenant = :tenant AND dead_lettered_at IS NOT NULL"
                        + (runId == null ? "" : " AND run_id = :runId")
                        + " GROUP BY run_id ORDER BY min(dead_lettered_at), run_id LIMIT :limit")
                .setParameter("tenant", tenant)
                .setParameter("limit", limit);
        if (runId != null) {
            query.setParameter("runId", runId);
        }
        List<Object[]> rows = query.getResultList();
        return rows.stream().map(DeadLetters::summary).toList();
    }

    /**
     * Puts the run's dead letters back on the queue, due now, with their failure counts reset (a fixed run starts
     * with a clean slate; a still broken one is parked again after the same number of failures). Returns how many.
     */
    public int requeue(String tenant, UUID runId, Instant now) {
        return em.createNativeQuery("""
                        UPDATE eec_queue_item
                           SET dead_lettered_at = NULL, available_at = ?3, failed_deliveries = 0, last_error = NULL
                         WHERE tenant = ?1 AND run_id = ?2 AND dead_lettered_at IS NOT NULL""")
                .setParameter(1, tenant)
                .setParameter(2, runId)
                .setParameter(3, now)
                .executeUpdate();
    }

    private static final String SUMMARY = """
            SELECT run_id, count(*), max(failed_deliveries),
                   (array_agg(last_error ORDER BY failed_deliveries DESC, id DESC))[1], min(dead_lettered_at)
              FROM eec_queue_item""";

    private static Summary summary(Object[] row) {
        return new Summary((UUID) row[0], ((Number) row[1]).intValue(), ((Number) row[2]).intValue(), (String) row[3],
                SqlTimestamps.toInstant(row[4]));
    }
}
