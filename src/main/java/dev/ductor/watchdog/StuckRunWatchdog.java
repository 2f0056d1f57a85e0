package dev.ductor.watchdog;

import dev.ductor.config.DuctorConfig;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.metrics.DuctorMetrics;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.QueueSignal;
import dev.ductor.run.coordinator.Coordinator;
import dev.ductor.run.LoadedRun;
import dev.ductor.run.RunLoader;
import dev.ductor.run.RunRows;
import dev.ductor.run.read.RunQueries;
import dev.ductor.run.core.StuckRunPolicy;
import dev.ductor.run.core.StuckRunPolicy.Verdict;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
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
 * keyed on {@code (created_at, run_id)} over the partial index of RUNNING runs, in batches, so it stays cheap with
 * millions of finished runs. A run it cannot load is logged, metered and skipped; the pass goes on. Several pods may
 * run it at once: a wakeup is free, and the failure is an ordinary version-checked tick that names the seq it was
 * judged on, so a run is failed exactly once, and never after it moved.
 */
@ApplicationScoped
public class StuckRunWatchdog {

    private static final Logger LOG = Logger.getLogger(StuckRunWatchdog.class);
    /** Upper bound on one pass, so a pathological backlog cannot pin a scheduler thread for long. */
    private static final int MAX_BATCHES_PER_PASS = 20;

    @Inject RunQueries runs;
    @Inject RunLoader loader;
    @Inject Coordinator coordinator;
    @Inject QueueRepository queue;
    @Inject QueueSignal signal;
    @Inject DuctorMetrics metrics;
    @Inject DuctorConfig config;
    @Inject Clock clock;

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
        Instant afterCreated = Instant.EPOCH;
        UUID afterRun = new UUID(0, 0);
        for (int batch = 0; batch < MAX_BATCHES_PER_PASS; batch++) {
            List<RunQueries.Quiet> candidates = candidates(cutoff, afterCreated, afterRun);
            for (RunQueries.Quiet quiet : candidates) {
                UUID runId = quiet.runId();
                if (examine(runId, now)) {
                    LOG.warnf("run %s made no progress since %s and nothing can advance it; force-failed as stuck", runId,
                            quiet.updatedAt());
                    failed.add(runId);
                }
            }
            if (candidates.size() < config.watchdog().batchSize()) {
                break;
            }
            RunQueries.Quiet last = candidates.get(candidates.size() - 1);
            afterCreated = last.createdAt();
            afterRun = last.runId();
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
        RunRows.Row run = judged.run().row();
        Instant at = clock.instant();
        QuarkusTransaction.requiringNew().run(() -> {
            queue.enqueue(List.of(NewQueueItem.wakeup(run.tenant(), run.tier(), run.runId(), at)), at);
            signal.afterCommit(QueueSignal.Channel.COORDINATORS);
        });
        metrics.watchdogWakeup();
        LOG.infof("run %s had work waiting but no wakeup (inbox %d rows); woke it instead of failing it",
                run.runId(), judged.run().inbox().size());
    }

    private List<RunQueries.Quiet> candidates(Instant cutoff, Instant afterCreated, UUID afterRun) {
        return QuarkusTransaction.requiringNew().call(() -> runs.quietRuns(cutoff, afterCreated, afterRun,
                config.watchdog().batchSize()));
    }
}
