package dev.ductor.queue;

import dev.ductor.config.SqlTimestamps;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.metrics.DuctorMetrics;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Samples the queue for {@code ductor_queue_depth{tier}} (items due now and not leased) and
 * {@code ductor_queue_lag_seconds{tier}} (how long the oldest of them has been due). One grouped query every
 * few seconds per pod; the claim index keeps it cheap.
 */
@ApplicationScoped
public class QueueSampler {

    private static final Logger LOG = Logger.getLogger(QueueSampler.class);

    @Inject EntityManager em;
    @Inject DuctorMetrics metrics;
    @Inject Clock clock;
    @Inject TierWeights weights;

    @Scheduled(every = "${ductor.metrics.queue-sample-interval:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void sample() {
        // The gauges keep their last values until the next sample.
        DatabaseOutage.skipIfUnreachable(LOG, "sampling the queue failed", this::sampleOnce);
    }

    @SuppressWarnings("unchecked")
    private void sampleOnce() {
        Instant now = clock.instant();
        List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> em.createNativeQuery("""
                        SELECT tier, count(*), min(greatest(available_at, created_at)) FROM eec_queue_item
                         WHERE available_at <= ?1 AND (kind <> 'TASK' OR lease_token IS NULL)
                         GROUP BY tier""")
                .setParameter(1, now)
                .getResultList());
        Set<String> seen = new HashSet<>();
        for (Object[] row : rows) {
            String tier = (String) row[0];
            seen.add(tier);
            metrics.queue(tier, ((Number) row[1]).longValue(), Duration.between(SqlTimestamps.toInstant(row[2]), now).toMillis());
        }
        weights.tiers().names().stream().filter(t -> !seen.contains(t)).forEach(t -> metrics.queue(t, 0, 0));
    }
}
