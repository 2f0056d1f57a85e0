package dev.ductor.watchdog;

import dev.ductor.config.SqlTimestamps;
import dev.ductor.config.DuctorConfig;
import dev.ductor.run.Coordinator;
import dev.ductor.run.RunLoader;
import dev.ductor.run.core.StuckRunPolicy;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Force-fails runs that can no longer advance. The scan is keyed on {@code (updated_at, run_id)} over the
 * partial index of RUNNING runs, in batches, so it stays cheap with millions of finished runs. Several pods may
 * run it at once: the failure is an ordinary version-checked tick, so a run is failed exactly once.
 */
@ApplicationScoped
public class StuckRunWatchdog {

    private static final Logger LOG = Logger.getLogger(StuckRunWatchdog.class);
    /** Upper bound on one pass, so a pathological backlog cannot pin a scheduler thread for long. */
    private static final int MAX_BATCHES_PER_PASS = 20;

    private final EntityManager em;
    private final RunLoader loader;
    private final Coordinator coordinator;
    private final DuctorConfig config;
    private final Clock clock;

    @Inject
    public StuckRunWatchdog(EntityManager em, RunLoader loader, Coordinator coordinator, DuctorConfig config, Clock clock) {
        this.em = em;
        this.loader = loader;
        this.coordinator = coordinator;
        this.config = config;
        this.clock = clock;
    }

    @Scheduled(every = "${ductor.watchdog.interval:1m}", delayed = "${ductor.watchdog.interval:1m}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void trigger() {
        if (config.watchdog().enabled()) {
            runOnce(clock.instant());
        }
    }

    /** One pass as of {@code now}; returns the runs this pass failed. */
    public List<UUID> runOnce(Instant now) {
        Instant cutoff = now.minus(config.watchdog().stuckAfter());
        List<UUID> failed = new ArrayList<>();
        Instant afterUpdated = Instant.EPOCH;
        UUID afterRun = new UUID(0, 0);
        for (int batch = 0; batch < MAX_BATCHES_PER_PASS; batch++) {
            List<Object[]> candidates = candidates(cutoff, afterUpdated, afterRun);
            for (Object[] row : candidates) {
                UUID runId = (UUID) row[0];
                OptionalLong stuckAt = stuckAt(runId);
                if (stuckAt.isPresent() && coordinator.forceFail(runId, "stuck", stuckAt.getAsLong(), List.of(), List.of())) {
                    LOG.warnf("run %s made no progress since %s and nothing can advance it; force-failed as stuck", runId, row[1]);
                    failed.add(runId);
                }
            }
            if (candidates.size() < config.watchdog().batchSize()) {
                break;
            }
            Object[] last = candidates.get(candidates.size() - 1);
            afterUpdated = SqlTimestamps.toInstant(last[1]);
            afterRun = (UUID) last[0];
        }
        return failed;
    }

    /** Old RUNNING runs with no queue row (task, timer, wakeup) and no unconsumed inbox row. */
    @SuppressWarnings("unchecked")
    private List<Object[]> candidates(Instant cutoff, Instant afterUpdated, UUID afterRun) {
        return QuarkusTransaction.requiringNew().call(() -> em.createNativeQuery("""
                        SELECT r.run_id, r.updated_at FROM eec_workflow_run r
                         WHERE r.status = 'RUNNING' AND r.updated_at < ?1
                           AND (r.updated_at, r.run_id) > (?2, ?3)
                           AND NOT EXISTS (SELECT 1 FROM eec_queue_item q WHERE q.run_id = r.run_id)
                           AND NOT EXISTS (SELECT 1 FROM eec_run_inbox i WHERE i.run_id = r.run_id AND i.consumed_at IS NULL)
                         ORDER BY r.updated_at, r.run_id
                         LIMIT ?4""")
                .setParameter(1, cutoff)
                .setParameter(2, afterUpdated)
                .setParameter(3, afterRun)
                .setParameter(4, config.watchdog().batchSize())
                .getResultList());
    }

    /** The seq at which the run was found stuck, or empty when it is not. */
    private OptionalLong stuckAt(UUID runId) {
        return QuarkusTransaction.requiringNew().call(() -> loader.load(runId)
                .filter(loaded -> StuckRunPolicy.isStuck(loaded.snapshot()))
                .map(loaded -> OptionalLong.of(loaded.snapshot().lastSeq()))
                .orElse(OptionalLong.empty()));
    }

}
