package dev.ductor.aggregate;

import dev.ductor.config.SqlTimestamps;
import dev.ductor.aggregate.core.AggregateEvent;
import dev.ductor.aggregate.core.NewEvent;
import dev.ductor.config.JsonCodec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * The event store of pools and rules. An append names the version it was decided on; it is refused unless
 * that is the stream's current version, and the insert at {@code expected + 1} is itself the atomic check:
 * {@code UNIQUE (aggregate_id, version)} lets one of two racing appends in and turns the other away
 * ({@code ON CONFLICT DO NOTHING}, so the losing transaction can still read what won). Events are never
 * updated or deleted. Joins the caller's transaction.
 */
@ApplicationScoped
public class AggregateStore {

    @Inject EntityManager em;
    @Inject JsonCodec json;
    @Inject Clock clock;

    /** Appends the events at {@code expectedVersion + 1 ...}; returns the new version. */
    public long append(AggregateKey key, long expectedVersion, List<NewEvent> events, String recordedBy) {
        long current = version(key);
        if (current != expectedVersion) {
            throw new AggregateConflictException(key, expectedVersion, current);
        }
        Instant now = clock.instant();
        long version = expectedVersion;
        for (NewEvent event : events) {
            version++;
            int inserted = em.createNativeQuery("""
                            INSERT INTO eec_aggregate_event (aggregate_type, tenant, name, aggregate_id, version, event_type,
                                                             payload, recorded_by, recorded_at)
                            VALUES (?1, ?2, ?3, ?4, ?5, ?6, CAST(?7 AS jsonb), ?8, ?9)
                            ON CONFLICT (aggregate_id, version) DO NOTHING""")
                    .setParameter(1, key.type())
                    .setParameter(2, key.tenant())
                    .setParameter(3, key.name())
                    .setParameter(4, key.id())
                    .setParameter(5, version)
                    .setParameter(6, event.type())
                    .setParameter(7, json.write(event.payload()))
                    .setParameter(8, recordedBy)
                    .setParameter(9, now)
                    .executeUpdate();
            if (inserted == 0) {
                // Another append took this version after we read the stream; the caller's transaction must roll back.
                throw new AggregateConflictException(key, expectedVersion, version(key));
            }
        }
        return version;
    }

    public long version(AggregateKey key) {
        Object max = em.createNativeQuery("SELECT COALESCE(max(version), 0) FROM eec_aggregate_event WHERE aggregate_id = ?1")
                .setParameter(1, key.id())
                .getSingleResult();
        return ((Number) max).longValue();
    }

    @SuppressWarnings("unchecked")
    public List<AggregateEvent> load(AggregateKey key) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT version, event_type, CAST(payload AS text), recorded_by, recorded_at
                          FROM eec_aggregate_event WHERE aggregate_id = ?1 ORDER BY version""")
                .setParameter(1, key.id())
                .getResultList();
        return rows.stream().map(r -> new AggregateEvent(((Number) r[0]).longValue(), (String) r[1], json.tree((String) r[2]),
                (String) r[3], SqlTimestamps.toInstant(r[4]))).toList();
    }

}
