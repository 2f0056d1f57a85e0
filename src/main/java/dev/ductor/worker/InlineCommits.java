package dev.ductor.worker;

import dev.ductor.database.DatabaseOutage;
import dev.ductor.error.ConflictException;
import dev.ductor.run.StepReport;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Each result applied the plain way, one run at a time: {@link TaskResults} takes the task row with its lease token and
 * puts the result into the run's inbox with a wakeup, in one transaction; a coordinator tick applies it
 * ({@code run/commit/RunCommitter}). No committer threads: an in-process step's result is recorded by the thread that ran it.
 * A result the database could not take because it was away is recorded again after a pause, while its lease may live,
 * as the group commit holds its own ({@link StepReporter}): a step that succeeded is not run again because a failover
 * cut its commit off.
 */
final class InlineCommits implements CommitStrategy {

    private static final Logger LOG = Logger.getLogger(InlineCommits.class);

    private final TaskResults results;
    private final OutageHold held;

    InlineCommits(TaskResults results, Duration lease, Clock clock) {
        this.results = results;
        this.held = new OutageHold(clock, lease, "ductor-inline-commit-retry");
    }

    @Override
    public void start() {
        held.start();
    }

    @Override
    public void report(StepReport report) {
        try {
            results.report(report);
            held.settled(report);
        } catch (ConflictException leaseLost) {
            held.settled(report);
            LOG.infof("task %d of run %s: %s", report.taskId(), report.runId(), leaseLost.getMessage());
        } catch (RuntimeException failed) {
            if (DatabaseOutage.isOutage(failed)) {
                if (!held.isHeld(report)) { // said once, not at every try
                    LOG.warnf("the result of task %d of run %s could not be recorded: %s; it is held and recorded again"
                            + " once the database answers", report.taskId(), report.runId(), DatabaseOutage.summary(failed));
                }
                held.hold(report, () -> report(report));
                return;
            }
            held.settled(report);
            LOG.warnf("the result of task %d of run %s could not be recorded (%s); its lease will expire and the step be"
                    + " dispatched again", report.taskId(), report.runId(), failed.getMessage());
        }
    }

    /** Held results are not kept past the pod: their leases run out, the steps go on elsewhere. */
    @Override
    public void drain(Duration grace) {
        held.stop();
    }

    /** Always the caller's own, plain way. */
    @Override
    public boolean takesExternalResults() {
        return false;
    }

    @Override
    public CompletableFuture<ExternalResults.Applied> submit(StepReport report, String owner, Set<String> nextHandlers) {
        return null;
    }
}
