package dev.ductor.worker;

import dev.ductor.run.StepReport;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The results that arrive together applied in one group commit ({@code run/commit/GroupCommit}): in-process steps' through
 * the {@link StepReporter}, external workers' through {@link ExternalResults}. A result that cannot be applied there
 * still goes the plain way ({@link TaskResults}), decided inside those two.
 */
final class GroupedCommits implements CommitStrategy {

    private final StepReporter steps;
    private final ExternalResults external;
    private final boolean inProcessWorker;

    GroupedCommits(StepReporter steps, ExternalResults external, boolean inProcessWorker) {
        this.steps = steps;
        this.external = external;
        this.inProcessWorker = inProcessWorker;
    }

    @Override
    public void start() {
        external.start();
        if (inProcessWorker) {
            steps.start();
        }
    }

    @Override
    public void report(StepReport report) {
        steps.report(report);
    }

    @Override
    public void drain(Duration grace) {
        steps.stop(grace);
    }

    @Override
    public boolean takesExternalResults() {
        return true;
    }

    @Override
    public CompletableFuture<ExternalResults.Applied> submit(StepReport report, String owner, Set<String> nextHandlers) {
        return external.submit(report, owner, nextHandlers);
    }
}
