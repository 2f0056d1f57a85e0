package dev.ductor.run.read;

import dev.ductor.config.SqlTimestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Runs that Ductor failed itself: the tick records a forced failure (the watchdog's {@code stuck}, the coordinator's
 * {@code livelock}) as the run's own transition to FAILED with cause {@code forced failure: <reason>}. Read from the
 * history of the tenant's failed runs, newest first.
 */
@ApplicationScoped
public class ForcedFailures {

    static final String CAUSE_PREFIX = "forced failure: ";

    public record ForcedFailure(UUID runId, String workflow, String reason, Instant at, String cause) {
    }

    @Inject EntityManager em;

    @Transactional
    @SuppressWarnings("unchecked")
    public List<ForcedFailure> recent(String tenant, int limit) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT r.run_id, r.workflow_name, t.at, t.cause
                          FROM eec_workflow_run r JOIN eec_run_transition t ON t.run_id = r.run_id
                         WHERE r.tenant = ?1 AND r.status = 'FAILED' AND t.node_id IS NULL AND t.to_state = 'FAILED'
                           AND t.cause LIKE 'forced failure: %'
                         ORDER BY t.at DESC LIMIT ?2""")
                .setParameter(1, tenant)
                .setParameter(2, limit)
                .getResultList();
        return rows.stream().map(row -> {
            String cause = (String) row[3];
            return new ForcedFailure((UUID) row[0], (String) row[1], cause.substring(CAUSE_PREFIX.length()),
                    SqlTimestamps.toInstant(row[2]), cause);
        }).toList();
    }
}
