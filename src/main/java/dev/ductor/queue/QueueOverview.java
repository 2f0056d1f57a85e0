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
