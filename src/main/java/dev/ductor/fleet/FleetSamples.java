package dev.ductor.fleet;

import dev.ductor.config.JsonCodec;
import dev.ductor.config.SqlTimestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code eec_fleet_sample} and {@code eec_fleet_pod}: the minute samples behind the fleet history. Writes never
 * overwrite: the first pod to sample a minute keeps its row ({@code ON CONFLICT DO NOTHING}), so pods need no
 * coordination. Joins the caller's transaction.
 */
@ApplicationScoped
public class FleetSamples {

    @Inject EntityManager em;
    @Inject JsonCodec json;

    /** The queue depth of {@code minute} by tenant and tier; false when another pod sampled that minute first. */
    public boolean recordQueueDepth(Instant minute, Map<String, Map<String, Long>> depth) {
        return em.createNativeQuery("""
                        INSERT INTO eec_fleet_sample (minute, queue_depth) VALUES (?1, CAST(?2 AS jsonb))
                        ON CONFLICT (minute) DO NOTHING""")
                .setParameter(1, minute)
                .setParameter(2, json.write(depth))
                .executeUpdate() == 1;
    }

    /** {@code pod} was alive in {@code minute}. */
    public void recordPod(Instant minute, String pod) {
        em.createNativeQuery("""
                        INSERT INTO eec_fleet_pod (minute, pod) VALUES (?1, ?2)
                        ON CONFLICT (minute, pod) DO NOTHING""")
                .setParameter(1, minute)
                .setParameter(2, pod)
                .executeUpdate();
    }

    /** Removes the samples of minutes before {@code cutoff}. */
    public int prune(Instant cutoff) {
        int samples = em.createNativeQuery("DELETE FROM eec_fleet_sample WHERE minute < ?1").setParameter(1, cutoff).executeUpdate();
        int pods = em.createNativeQuery("DELETE FROM eec_fleet_pod WHERE minute < ?1").setParameter(1, cutoff).executeUpdate();
        return samples + pods;
    }

    /** {@code tenant}'s queue depth per tier in each sampled minute of [from, to); a tenant with nothing due: empty. */
    @SuppressWarnings("unchecked")
    public Map<Instant, Map<String, Long>> queueDepth(String tenant, Instant from, Instant to) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT minute, CAST(coalesce(queue_depth -> ?1, '{}') AS text) FROM eec_fleet_sample
                         WHERE minute >= ?2 AND minute < ?3 ORDER BY minute""")
                .setParameter(1, tenant)
                .setParameter(2, from)
                .setParameter(3, to)
                .getResultList();
        Map<Instant, Map<String, Long>> depth = new TreeMap<>();
        for (Object[] row : rows) {
            Map<String, Long> tiers = new TreeMap<>();
            json.tree((String) row[1]).fields().forEachRemaining(e -> tiers.put(e.getKey(), e.getValue().asLong()));
            depth.put(SqlTimestamps.toInstant(row[0]), tiers);
        }
        return depth;
    }

    /** How many pods were alive in each minute of [from, to) that has any. */
    @SuppressWarnings("unchecked")
    public Map<Instant, Long> podsAlive(Instant from, Instant to) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT minute, count(*) FROM eec_fleet_pod WHERE minute >= ?1 AND minute < ?2 GROUP BY minute""")
                .setParameter(1, from)
                .setParameter(2, to)
                .getResultList();
        Map<Instant, Long> pods = new TreeMap<>();
        rows.forEach(r -> pods.put(SqlTimestamps.toInstant(r[0]), ((Number) r[1]).longValue()));
        return pods;
    }
}
