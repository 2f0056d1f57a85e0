package dev.ductor.watchdog;

import dev.ductor.config.SqlTimestamps;
import dev.ductor.config.DuctorConfig;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.metrics.DuctorMetrics;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.QueueSignal;
import dev.ductor.run.Coordinator;
import dev.ductor.run.LoadedRun;
import dev.ductor.run.RunLoader;
import dev.ductor.run.WorkflowRunEntity;
import dev.ductor.run.core.StuckRunPolicy;
import dev.ductor.run.core.StuckRunPolicy.Verdict;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Looks after runs that have not committed for {@code ductor.watchdog.stuck-after} and have nothing queued: wakes
 * those a tick would advance (their wakeup was lost), force-fails those nothing can advance, and leaves alone those
 * parked on a signal, which the scan excludes in SQL so that any number of them cannot hide a stuck run. The scan is
 * keyed on {@code (updated_at, run_id)} over the partial index of RUNNING runs, in batches, so it stays cheap with
 * millions of finished runs. A run it cannot load is logged, metered and skipped; the pass goes on. Several pods may
 * run it at once: a wakeup is free, and the failure is an ordinary version-checked tick that names the seq it was
 * judged on, so a run is failed exactly once, and never after it moved.
 */
@ApplicationScoped
public class StuckRunWatchdog {

    private static final Logger LOG = Logger.getLogger(StuckRunWatchdog.class);
    /** Upper bound on one pass, so a pathological backlog cannot pin a scheduler thread for long. */
    private static final int MAX_BATCHES_PER_PASS = 20;

    private final EntityManager em;
    private final RunLoader loader;
    private final Coordinator coordinator;
    private final QueueRepository queue;
    private final QueueSignal signal;
    private final DuctorMetrics metrics;
    private final DuctorConfig config;
    private final Clock clock;

    @Inject
    public StuckRunWatchdog(EntityManager em, RunLoader loader, Coordinator coordinator, QueueRepository queue,
                            QueueSignal signal, DuctorMetrics metrics, DuctorConfig config, Clock clock) {
        this.em = em;
        this.loader = loader;
        this.coordinator = coordinator;
        this.queue = queue;
        this.signal = signal;
        this.metrics = metrics;
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
                if (examine(runId, now)) {
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

    /** Judges one run and acts on the verdict; true when it was force-failed. A run that cannot be read is skipped. */
    private boolean examine(UUID runId, Instant now) {
        try {
            Optional<Judged> judged = judge(runId, now);
            if (judged.isEmpty() || judged.get().verdict() == Verdict.LEAVE) {
                return false;
            }
            if (judged.get().verdict() == Verdict.WAKE) {
                wake(judged.get());
                return false;
            }
            return coordinator.forceFail(runId, "stuck", judged.get().seq(), List.of(), List.of());
        } catch (RuntimeException e) {
            if (DatabaseOutage.isOutage(e)) {
                throw e; // every other run would fail the same way: end the pass, the next one starts afresh
            }
            metrics.watchdogUnloadable();
            LOG.warnf("run %s cannot be examined and was skipped (nothing was changed): %s", runId, e.getMessage());
            return false;
        }
    }

    private record Judged(LoadedRun run, Verdict verdict, long seq) {
    }

    private Optional<Judged> judge(UUID runId, Instant now) {
        return QuarkusTransaction.requiringNew().call(() -> loader.load(runId).map(loaded -> new Judged(loaded,
                StuckRunPolicy.verdict(loaded.snapshot(), loaded.inbox(), now), loaded.snapshot().lastSeq())));
    }

    /** A redundant wakeup is harmless (one no-op tick), so there is nothing to check before queueing it. */
    private void wake(Judged judged) {
        WorkflowRunEntity run = judged.run().entity();
        Instant at = clock.instant();
        QuarkusTransaction.requiringNew().run(() -> {
            queue.enqueue(List.of(NewQueueItem.wakeup(run.tenant, run.tier, run.runId, at)), at);
            signal.afterCommit(QueueSignal.Channel.COORDINATORS);
        });
        metrics.watchdogWakeup();
        LOG.infof("run %s had work waiting but no wakeup (inbox %d rows); woke it instead of failing it",
                run.runId, judged.run().inbox().size());
    }

    /**
     * Old RUNNING runs with no queue row of any kind (task, timer, wakeup, or a dead-lettered one an operator owns)
     * and no node waiting for a signal: the WAITING signal nodes are found by joining the node states to the pinned
     * revision, so parked runs are not even read (node states that are not an object, a corrupt row, are read as having
     * no node, so that the run is examined and reported). Runs with pending inbox rows are included: they may need a
     * wakeup.
     */
    @SuppressWarnings("unchecked")
    private List<Object[]> candidates(Instant cutoff, Instant afterUpdated, UUID afterRun) {
        return QuarkusTransaction.requiringNew().call(() -> em.createNativeQuery("""
                        SELECT r.run_id, r.updated_at FROM eec_workflow_run r
                         WHERE r.status = 'RUNNING' AND r.updated_at < ?1
                           AND (r.updated_at, r.run_id) > (?2, ?3)
                           AND NOT EXISTS (SELECT 1 FROM eec_queue_item q WHERE q.run_id = r.run_id)
                           AND NOT EXISTS (
                               SELECT 1 FROM jsonb_each(CASE WHEN jsonb_typeof(r.node_states) = 'object'
                                                             THEN r.node_states ELSE '{}' END) n(node, state)
                                 JOIN eec_workflow_revision w ON w.tenant = r.tenant AND w.name = r.workflow_name
                                                             AND w.revision = r.workflow_revision
                                WHERE n.state ->> 'state' = 'WAITING'
                                  AND w.definition -> 'nodes' @> jsonb_build_array(jsonb_build_object('id', n.node, 'type', 'signal')))
                         ORDER BY r.updated_at, r.run_id
                         LIMIT ?4""")
                .setParameter(1, cutoff)
                .setParameter(2, afterUpdated)
                .setParameter(3, afterRun)
                .setParameter(4, config.watchdog().batchSize())
                .getResultList());
    }
}
