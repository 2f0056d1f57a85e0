package dev.ductor.worker;

import dev.ductor.error.ConflictException;
import dev.ductor.run.StepReport;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Each result applied the plain way, one run at a time: {@link TaskResults} takes the task row with its lease token and
 * puts the result into the run's inbox with a wakeup, in one transaction; a coordinator tick applies it
 * ({@code run/commit/RunCommitter}). No committer threads: an in-process step's result is recorded by the thread that ran it.
 */
final class InlineCommits implements CommitStrategy {

    private static final Logger LOG = Logger.getLogger(InlineCommits.class);

    private final TaskResults results;

    InlineCommits(TaskResults results) {
        this.results = results;
    }

    @Override
    public void start() {
    }

    @Override
    public void report(StepReport report) {
        try {
            results.report(report);
        } catch (ConflictException leaseLost) {
            LOG.infof("task %d of run %s: %s", report.taskId(), report.runId(), leaseLost.getMessage());
        } catch (RuntimeException failed) {
            LOG.warnf("the result of task %d of run %s could not be recorded (%s); its lease will expire and the step be"
                    + " dispatched again", report.taskId(), report.runId(), failed.getMessage());
        }
    }

    @Override
    public void drain(Duration grace) {
    }

    /** Always the caller's own, plain way. */
    @Override
    public CompletableFuture<ExternalResults.Applied> submit(StepReport report, String owner, Set<String> nextHandlers) {
        return null;
    }
}
