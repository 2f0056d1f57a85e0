package dev.ductor.run.read;

import dev.ductor.config.SqlTimestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A tenant's runs per minute over a recent window, for the fleet history: how many started, how many finished (and of
 * those, failed), and the median and 99th percentile of their time from start to finish, all from the run rows'
 * {@code created_at} and {@code updated_at} (a finished run's row is not written again until a reset reopens it).
 *
 * <p>The read is bounded by {@code created_at} through {@code ix_workflow_run_tenant_created}: the window's runs and
 * those started up to {@link #FINISH_LOOKBACK} before it, so its cost follows the recent load, never the table's
 * size. No index on {@code updated_at} is needed or wanted: the run row's updates are HOT (V11), and an index on a
 * column every tick writes would end that. A run that finishes in the window but started longer than the look-back
 * before it is not counted.
 */
@ApplicationScoped
public class RunThroughput {

    /** How long before the window a run may have started and still be counted when it finishes in the window. */
    public static final Duration FINISH_LOOKBACK = Duration.ofHours(1);

    /** One minute: {@code p50Ms} and {@code p99Ms} are null when no run finished in it. */
    public record Minute(Instant at, long started, long finished, long failed, Double p50Ms, Double p99Ms) {
    }

    /**
     * ?1 tenant, ?2 the earliest start read (the window's start less the look-back), ?3 the window's start, ?4 its end.
     * Every row is found through the created_at range of one tenant; updated_at only filters what that range found.
     */
    static final String PER_MINUTE = """
                WITH recent AS MATERIALIZED (
                    SELECT created_at, updated_at, status FROM eec_workflow_run
                     WHERE tenant = ?1 AND created_at >= ?2 AND created_at < ?4
                ), started AS (
                    SELECT date_trunc('minute', created_at) AS minute, count(*) AS n FROM recent
                     WHERE created_at >= ?3 GROUP BY 1
                ), finished AS (
                    SELECT date_trunc('minute', updated_at) AS minute, count(*) AS n,
                           count(*) FILTER (WHERE status = 'FAILED') AS failed,
                           percentile_disc(0.5) WITHIN GROUP (ORDER BY updated_at - created_at) AS p50,
                           percentile_disc(0.99) WITHIN GROUP (ORDER BY updated_at - created_at) AS p99
                      FROM recent WHERE status <> 'RUNNING' AND updated_at >= ?3 AND updated_at < ?4 GROUP BY 1
                )
                SELECT coalesce(s.minute, f.minute), coalesce(s.n, 0), coalesce(f.n, 0), coalesce(f.failed, 0),
                       extract(epoch FROM f.p50) * 1000, extract(epoch FROM f.p99) * 1000
                  FROM started s FULL JOIN finished f ON f.minute = s.minute
                 ORDER BY 1""";

    @Inject EntityManager em;

    /** The minutes of [{@code from}, {@code to}) that had a run start or finish, in order; both ends whole minutes. */
    @Transactional
    @SuppressWarnings("unchecked")
    public List<Minute> perMinute(String tenant, Instant from, Instant to) {
        List<Object[]> rows = em.createNativeQuery(PER_MINUTE)
                .setParameter(1, tenant)
                .setParameter(2, from.minus(FINISH_LOOKBACK))
                .setParameter(3, from)
                .setParameter(4, to)
                .getResultList();
        return rows.stream().map(r -> new Minute(SqlTimestamps.toInstant(r[0]), ((Number) r[1]).longValue(),
                ((Number) r[2]).longValue(), ((Number) r[3]).longValue(), number(r[4]), number(r[5]))).toList();
    }

    private static Double number(Object value) {
        return value == null ? null : ((Number) value).doubleValue();
    }
}
