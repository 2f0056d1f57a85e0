package dev.ductor.run;

import dev.ductor.queue.NewQueueItem;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What reaches a run from outside, waiting for the next tick. Every sender (a step's result, a result that lost its
 * group commit's race, a signal, a cancellation, a child run's end) comes in by {@link #deliverAndWake}: the message,
 * then a wakeup for the run, in the sender's transaction. Raw SQL because the deduplication is
 * {@code ON CONFLICT DO NOTHING} on {@code UNIQUE (run_id, dedup_key)}: a repeated delivery is a no-op
 * decided by the database, not by a read-then-insert that two deliveries could both pass.
 */
@ApplicationScoped
public class RunInbox {

    @Inject EntityManager em;
    @Inject RunOutbox outbox;

    /** A message for a run's inbox, and the run's tenant and tier, for the wakeup that follows it. */
    public record Delivery(UUID runId, String tenant, String tier, InboxKind kind, String dedupKey, String nodeId,
                           Integer attempt, Long taskId, String payload) {

        /** A step's outcome for a node's attempt: one key per attempt, so it is applied once however often it comes. */
        public static Delivery result(UUID runId, String tenant, String tier, String node, int attempt, Long taskId,
                                      String payload) {
            return new Delivery(runId, tenant, tier, InboxKind.TASK_RESULT, StepReport.dedupKey(node, attempt), node,
                    attempt, taskId, payload);
        }

        /** A signal, under its sender's idempotency key. */
        public static Delivery signal(UUID runId, String tenant, String tier, String idempotencyKey, String payload) {
            return new Delivery(runId, tenant, tier, InboxKind.SIGNAL, "signal:" + idempotencyKey, null, null, null, payload);
        }

        /** A cancellation: one per run, the first one's reason kept. */
        public static Delivery cancel(UUID runId, String tenant, String tier, String payload) {
            return new Delivery(runId, tenant, tier, InboxKind.CANCEL, "cancel", null, null, null, payload);
        }
    }

    /**
     * The one door to a run's inbox from outside its tick: delivers the message and, when it is new, queues a wakeup for
     * the run in the same transaction (its coordinators are nudged once that commits). A repeat wakes nothing: its first
     * delivery was committed with its own wakeup. True when the delivery was new.
     */
    public boolean deliverAndWake(Delivery delivery, Instant now) {
        boolean fresh = deliver(delivery, now);
        if (fresh) {
            outbox.write(List.of(NewQueueItem.wakeup(delivery.tenant(), delivery.tier(), delivery.runId(), now)), now);
        }
        return fresh;
    }

    /** {@link #deliverAndWake(Delivery, Instant)} for many messages: the new ones' wakeups in one batch. */
    public void deliverAndWake(List<Delivery> deliveries, Instant now) {
        List<NewQueueItem> wakeups = new ArrayList<>();
        for (Delivery delivery : deliveries) {
            if (deliver(delivery, now)) {
                wakeups.add(NewQueueItem.wakeup(delivery.tenant(), delivery.tier(), delivery.runId(), now));
            }
        }
        if (!wakeups.isEmpty()) {
            outbox.write(wakeups, now);
        }
    }

    private boolean deliver(Delivery d, Instant now) {
        return deliver(d.runId(), d.kind(), d.dedupKey(), d.nodeId(), d.attempt(), d.taskId(), d.payload(), now);
    }

    /**
     * The inbox row alone, without a wakeup (main code delivers through {@link #deliverAndWake}; tests plant rows here).
     * True when this delivery was new; false when the same dedup key was delivered before. Plain JDBC: every signal and
     * every result that misses its group commit delivers here, and Hibernate's native-query machinery around an
     * executeUpdate cost more than the INSERT itself.
     * The session is flushed first, as the native query did, so rows this transaction persisted come first.
     */
    public boolean deliver(UUID runId, InboxKind kind, String dedupKey, String nodeId, Integer attempt, Long taskId,
                           String payload, Instant now) {
        em.flush();
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement insert = connection.prepareStatement("""
                    INSERT INTO eec_run_inbox (run_id, kind, dedup_key, node_id, attempt, task_id, payload, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?)
                    ON CONFLICT (run_id, dedup_key) DO NOTHING""")) {
                insert.setObject(1, runId);
                insert.setString(2, kind.name());
                insert.setString(3, dedupKey);
                insert.setString(4, nodeId);
                insert.setObject(5, attempt, java.sql.Types.INTEGER);
                insert.setObject(6, taskId, java.sql.Types.BIGINT);
                insert.setString(7, payload);
                insert.setObject(8, now.atOffset(java.time.ZoneOffset.UTC));
                return insert.executeUpdate() == 1;
            }
        });
    }

    /**
     * Records step results applied in the same transaction, as consumed, in one statement: what {@link #resultOf}
     * finds for a repeated report. A result already there (the same attempt delivered before) is left as it is.
     */
    public void recordConsumed(List<StepReport> reports, dev.ductor.config.JsonCodec json, Instant now) {
        if (reports.isEmpty()) {
            return;
        }
        em.flush();
        em.unwrap(Session.class).doWork(connection -> {
            try (PreparedStatement insert = connection.prepareStatement("""
                    INSERT INTO eec_run_inbox (run_id, kind, dedup_key, node_id, attempt, task_id, payload, created_at, consumed_at)
                    SELECT r.run_id, ?, r.dedup_key, r.node_id, r.attempt, r.task_id, CAST(r.payload AS jsonb), ?, ?
                      FROM unnest(?, ?, ?, ?, ?, ?) AS r(run_id, dedup_key, node_id, attempt, task_id, payload)
                    ON CONFLICT (run_id, dedup_key) DO NOTHING""")) {
                int n = reports.size();
                Object[] runs = new Object[n];
                Object[] keys = new Object[n];
                Object[] nodes = new Object[n];
                Object[] attempts = new Object[n];
                Object[] tasks = new Object[n];
                Object[] payloads = new Object[n];
                for (int i = 0; i < n; i++) {
                    StepReport report = reports.get(i);
                    runs[i] = report.runId();
                    keys[i] = StepReport.dedupKey(report.node(), report.attempt());
                    nodes[i] = report.node();
                    attempts[i] = report.attempt();
                    tasks[i] = report.taskId();
                    payloads[i] = json.write(report.payload(json.mapper()));
                }
                java.time.OffsetDateTime at = now.atOffset(java.time.ZoneOffset.UTC);
                insert.setString(1, InboxKind.TASK_RESULT.name());
                insert.setObject(2, at);
                insert.setObject(3, at);
                insert.setArray(4, connection.createArrayOf("uuid", runs));
                insert.setArray(5, connection.createArrayOf("text", keys));
                insert.setArray(6, connection.createArrayOf("text", nodes));
                insert.setArray(7, connection.createArrayOf("integer", attempts));
                insert.setArray(8, connection.createArrayOf("bigint", tasks));
                insert.setArray(9, connection.createArrayOf("text", payloads));
                insert.executeUpdate();
            }
        });
    }

    /** What a task reported the first time, for telling an identical repeat from a fenced-off one. */
    public String resultOf(long taskId) {
        List<?> rows = em.createNativeQuery("SELECT CAST(payload AS text) FROM eec_run_inbox WHERE task_id = ?1")
                .setParameter(1, taskId)
                .getResultList();
        return rows.isEmpty() ? null : (String) rows.get(0);
    }

    /** How many messages of {@code kind} wait for the run's next tick, counted up to {@code upTo} at most. */
    public int pending(UUID runId, InboxKind kind, int upTo) {
        return ((Number) em.createNativeQuery("""
                        SELECT count(*) FROM (SELECT 1 FROM eec_run_inbox
                                               WHERE run_id = ?1 AND kind = ?2 AND consumed_at IS NULL LIMIT ?3) waiting""")
                .setParameter(1, runId)
                .setParameter(2, kind.name())
                .setParameter(3, upTo)
                .getSingleResult()).intValue();
    }

    /**
     * Serialises, until the transaction ends, the writers that count a run's pending inbox before adding to it: a
     * count and an insert under READ COMMITTED let concurrent senders each see room for one more and all add theirs.
     * A transaction-scoped advisory lock keyed on the run id (its two halves folded into one bigint); taken only near
     * a bound, so a run far from it pays nothing.
     */
    public void lockForCount(UUID runId) {
        em.createNativeQuery("SELECT pg_advisory_xact_lock(?1)")
                .setParameter(1, runId.getMostSignificantBits() ^ runId.getLeastSignificantBits())
                .getSingleResult();
    }

    public boolean contains(UUID runId, String dedupKey) {
        return !em.createNativeQuery("SELECT 1 FROM eec_run_inbox WHERE run_id = ?1 AND dedup_key = ?2")
                .setParameter(1, runId)
                .setParameter(2, dedupKey)
                .getResultList().isEmpty();
    }

    /**
     * Marks everything still pending for a finished run as consumed: a signal accepted in the instant the run
     * finished can never be delivered, and must not look pending forever. Not a write to the run row.
     */
    public int drain(UUID runId, Instant now) {
        return em.createNativeQuery("UPDATE eec_run_inbox SET consumed_at = ?2 WHERE run_id = ?1 AND consumed_at IS NULL")
                .setParameter(1, runId)
                .setParameter(2, now)
                .executeUpdate();
    }

    @SuppressWarnings("unchecked")
    public List<InboxMessage> pending(UUID runId) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT id, kind, node_id, attempt, CAST(payload AS text) FROM eec_run_inbox
                         WHERE run_id = ?1 AND consumed_at IS NULL ORDER BY id""")
                .setParameter(1, runId)
                .getResultList();
        return rows.stream().map(r -> new InboxMessage(((Number) r[0]).longValue(), InboxKind.valueOf((String) r[1]),
                (String) r[2], r[3] == null ? null : ((Number) r[3]).intValue(), (String) r[4])).toList();
    }

    /** The pending rows of many runs in one statement, each run's in arrival order (the group commit's read). */
    public Map<UUID, List<InboxMessage>> pending(Collection<UUID> runIds) {
        if (runIds.isEmpty()) {
            return Map.of();
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            Map<UUID, List<InboxMessage>> pending = new HashMap<>();
            try (PreparedStatement select = connection.prepareStatement("""
                    SELECT run_id, id, kind, node_id, attempt, CAST(payload AS text) FROM eec_run_inbox
                     WHERE run_id = ANY(?) AND consumed_at IS NULL ORDER BY run_id, id""")) {
                select.setArray(1, connection.createArrayOf("uuid", runIds.toArray()));
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        int attempt = rs.getInt(5);
                        pending.computeIfAbsent(rs.getObject(1, UUID.class), id -> new ArrayList<>())
                                .add(new InboxMessage(rs.getLong(2), InboxKind.valueOf(rs.getString(3)), rs.getString(4),
                                        rs.wasNull() ? null : attempt, rs.getString(6)));
                    }
                }
            }
            return pending;
        });
    }

    public void markConsumed(Collection<Long> ids, Instant now) {
        if (ids.isEmpty()) {
            return;
        }
        em.createNativeQuery("UPDATE eec_run_inbox SET consumed_at = ?1 WHERE id IN (?2)")
                .setParameter(1, now)
                .setParameter(2, ids)
                .executeUpdate();
    }
}
