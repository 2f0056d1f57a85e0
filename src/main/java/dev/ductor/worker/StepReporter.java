package dev.ductor.worker;

import dev.ductor.config.DuctorConfig;
import dev.ductor.error.ConflictException;
import dev.ductor.run.CommitGroups;
import dev.ductor.run.GroupCommit;
import dev.ductor.run.StepReport;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Applies the in-process steps' results to their runs in group commits. A committer takes whatever results have
 * arrived, up to the batch size, and commits them in one transaction ({@link GroupCommit}); a lone result commits
 * at once and a burst shares one commit. Only with {@code ductor.worker.commit-linger} set, and only after a commit
 * that was shared, does it wait that long for more before committing. If a group commit fails as a
 * whole (the database went away, say), each of its results is reported on its own through the inbox instead;
 * a result that cannot be reported at all is lost with its lease, which the lease reaper turns into a retried
 * attempt, exactly as when a pod crashes.
 */
@ApplicationScoped
public class StepReporter {

    private static final Logger LOG = Logger.getLogger(StepReporter.class);

    @Inject GroupCommit groupCommit;
    @Inject TaskResults results;
    @Inject DuctorConfig config;
    private final LinkedBlockingQueue<StepReport> reports = new LinkedBlockingQueue<>();
    private final List<Thread> committers = new ArrayList<>();
    private volatile boolean running;
    private InProcessWorker worker;

    /** Starts the committers; {@code worker} runs the next steps each group commit leases to this pod. */
    void start(InProcessWorker worker) {
        this.worker = worker;
        running = true;
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
        CommitGroups<StepReport> groups = new CommitGroups<>(reports, max, config.worker().commitLinger().toNanos());
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
     * Commits the batch; the steps it dispatches that this pod can run at once are leased to it in the same commit
     * (eager dispatch: a chain's next step runs here without a claim) and start once the commit is durable.
     */
    private void commit(List<StepReport> batch) {
        try {
            groupCommit.apply(batch, worker);
        } catch (RuntimeException groupFailed) {
            LOG.warnf("a group commit of %d step results failed (%s); reporting them one by one", batch.size(),
                    groupFailed.getMessage());
            for (StepReport report : batch) {
                try {
                    results.report(report);
                } catch (ConflictException leaseLost) {
                    LOG.infof("task %d of run %s: %s", report.taskId(), report.runId(), leaseLost.getMessage());
                } catch (RuntimeException failed) {
                    LOG.warnf("the result of task %d of run %s could not be recorded (%s); its lease will expire and"
                            + " the attempt be retried", report.taskId(), report.runId(), failed.getMessage());
                }
            }
        }
    }
}
