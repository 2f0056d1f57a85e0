package dev.ductor.worker;

import dev.ductor.config.DuctorConfig;
import dev.ductor.error.ConflictException;
import dev.ductor.run.commit.BatchGatherer;
import dev.ductor.run.commit.GroupCommit;
import dev.ductor.run.LocalDispatch;
import dev.ductor.run.StepReport;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import dev.ductor.database.DatabaseOutage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Applies the in-process steps' results to their runs in group commits. A committer takes whatever results have
 * arrived, up to the batch size, and commits them in one transaction ({@link GroupCommit}); a lone result commits
 * at once and a burst shares one commit. Only with {@code ductor.worker.commit-linger} set, and only after a commit
 * that was shared, does it wait that long for more before committing. If a group commit fails because the database
 * is away, its results are held and committed again when it answers, while their leases live; if it fails for another
 * reason, each of its results is reported on its own through the inbox instead. A result that cannot be reported at
 * all is lost with its lease, which the lease reaper turns into a new dispatch of the step, as when a pod crashes.
 */
@ApplicationScoped
public class StepReporter {

    private static final Logger LOG = Logger.getLogger(StepReporter.class);

    @Inject GroupCommit groupCommit;
    @Inject TaskResults results;
    @Inject DuctorConfig config;
    @Inject java.time.Clock clock;
    @Inject LocalDispatch dispatch;
    private final LinkedBlockingQueue<StepReport> reports = new LinkedBlockingQueue<>();
    private OutageHold held;
    private final List<Thread> committers = new ArrayList<>();
    private volatile boolean running;

    /** Starts the committers. */
    void start() {
        running = true;
        held = new OutageHold(clock, config.worker().lease(), "ductor-step-commit-retry");
        held.start();
        for (int i = 0; i < config.worker().committers(); i++) {
            Thread committer = new Thread(this::commitLoop, "ductor-step-commit-" + i);
            committer.setDaemon(true);
            committers.add(committer);
            committer.start();
        }
    }

    /** Queues a finished step's result for the next group commit. */
    void report(StepReport report) {
        reports.add(report);
    }

    /** Commits what is still queued, then stops the committers (waiting up to {@code grace}). */
    void stop(Duration grace) {
        running = false;
        if (held != null) {
            held.stop();
        }
        long deadline = System.nanoTime() + grace.toNanos();
        for (Thread committer : committers) {
            try {
                committer.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void commitLoop() {
        int max = config.worker().commitBatchSize();
        BatchGatherer<StepReport> groups = new BatchGatherer<>(reports, max, config.worker().commitLinger().toNanos());
        List<StepReport> batch = new ArrayList<>(max);
        while (running || !reports.isEmpty()) {
            try {
                if (groups.next(batch)) {
                    commit(batch);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                batch.clear();
            }
        }
    }

    /**
     * Commits the batch; the steps it dispatches that this pod can run at once may be leased to it in the same commit
     * ({@link LocalDispatch}; eager: a chain's next step runs here without a claim) and start once the commit is durable. A batch
     * that fails because the database is away is held, whole, and committed again once it answers ({@link #hold}); one
     * that fails for another reason is reported result by result, so one bad result does not keep its neighbours out.
     */
    private void commit(List<StepReport> batch) {
        try {
            groupCommit.apply(batch, dispatch.thisPod());
            batch.forEach(report -> held.settled(report));
        } catch (RuntimeException groupFailed) {
            String outage = DatabaseOutage.summary(groupFailed);
            if (outage != null) {
                LOG.warnf("a group commit of %d step results failed: %s; they are held and committed again once the"
                        + " database answers", batch.size(), outage);
                batch.forEach(this::hold);
                return;
            }
            LOG.warnf("a group commit of %d step results failed (%s); reporting them one by one", batch.size(),
                    groupFailed.getMessage());
            for (StepReport report : batch) {
                try {
                    results.report(report);
                    held.settled(report);
                } catch (ConflictException leaseLost) {
                    held.settled(report);
                    LOG.infof("task %d of run %s: %s", report.taskId(), report.runId(), leaseLost.getMessage());
                } catch (RuntimeException failed) {
                    if (DatabaseOutage.isOutage(failed)) {
                        hold(report);
                    } else {
                        held.settled(report);
                        LOG.warnf("the result of task %d of run %s could not be recorded (%s); its lease will expire and"
                                + " the step be dispatched again", report.taskId(), report.runId(), failed.getMessage());
                    }
                }
            }
        }
    }

    /** A result the database could not take goes back into the queue after a pause, while its lease lives. */
    private void hold(StepReport report) {
        held.hold(report, () -> reports.add(report));
    }
}
