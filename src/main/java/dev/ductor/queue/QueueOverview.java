package dev.ductor.queue;

import dev.ductor.config.SqlTimestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A tenant's share of the queue as an operator sees it: per tier, how many items are due and waiting (the depth of
 * {@code ductor_queue_depth}, counted like the sampler does) and how long the oldest has waited; and how many tasks
 * workers hold right now. Read-only; dead-lettered items are due at 'infinity', so they never count as due.
 */
@ApplicationScoped
public class QueueOverview {

    public record TierLoad(String tier, long depth, double lagSeconds) {
    }

    public record Snapshot(Instant at, List<TierLoad> tiers, long leasedTasks) {
    }

    @Inject EntityManager em;
    @Inject Clock clock;
    @Inject TierWeights weights;

    /**
     * The whole fleet's queue depth by tenant and tier at {@code now}, counted like {@link #of}: one grouped read of
     * the due items, for the fleet history's minute samples. Tenants with nothing due are absent.
     */
    @Transactional
    @SuppressWarnings("unchecked")
    public Map<String, Map<String, Long>> depthByTenantAndTier(Instant now) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT tenant, tier, count(*) FROM eec_queue_item
                         WHERE available_at <= ?1 AND (kind <> 'TASK' OR lease_token IS NULL)
                         GROUP BY tenant, tier""")
                .setParameter(1, now)
                .getResultList();
        Map<String, Map<String, Long>> depth = new TreeMap<>();
        for (Object[] row : rows) {
            depth.computeIfAbsent((String) row[0], t -> new TreeMap<>()).put((String) row[1], ((Number) row[2]).longValue());
        }
        return depth;
    }

    @Transactional
    @SuppressWarnings("unchecked")
    public Snapshot of(String tenant) {
        Instant now = clock.instant();
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT tier, count(*), min(greatest(available_at, created_at)) FROM eec_queue_item
                         WHERE tenant = ?1 AND available_at <= ?2 AND (kind <> 'TASK' OR lease_token IS NULL)
                         GROUP BY tier ORDER BY tier""")
                .setParameter(1, tenant)
                .setParameter(2, now)
                .getResultList();
        List<TierLoad> tiers = new ArrayList<>();
        for (String tier : weights.tiers().names()) { // every configured tier, shown even when idle
            tiers.add(new TierLoad(tier, 0, 0));
        }
        for (Object[] row : rows) {
            String tier = (String) row[0];
            double lag = Math.max(0, Duration.between(SqlTimestamps.toInstant(row[2]), now).toMillis() / 1000.0);
            TierLoad load = new TierLoad(tier, ((Number) row[1]).longValue(), lag);
            tiers.removeIf(t -> t.tier().equals(tier));
            tiers.add(load);
        }
        long leased = ((Number) em.createNativeQuery("""
                        SELECT count(*) FROM eec_queue_item
                         WHERE tenant = ?1 AND kind = 'TASK' AND lease_token IS NOT NULL""")
                .setParameter(1, tenant)
                .getSingleResult()).longValue();
        return new Snapshot(now, tiers, leased);
    }
}
