package dev.ductor.worker;

import dev.ductor.run.StepReport;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * How finished steps' results are applied to their runs ({@code ductor.commit.strategy}), for in-process steps and
 * external workers' reports alike: {@link GroupedCommits}, the results that arrive together in one commit, or
 * {@link InlineCommits}, each result the plain way ({@link TaskResults}: its run's inbox, a wakeup, a coordinator
 * tick). Chosen once at start-up ({@link Seams}); the workers hand their results here and never look at the setting.
 */
public interface CommitStrategy {

    /** At start-up, before the loops: whatever commits results in the background starts. */
    void start();

    /** An in-process step's result, from the thread that ran the step. Never throws. */
    void report(StepReport report);

    /** The in-process worker is stopping, its steps ended: the results it reported are applied, within {@code grace}. */
    void drain(Duration grace);

    /**
     * Whether external workers' results are applied here ({@link #submit}); when not, the caller takes the plain way at
     * once, without the look-up of the task's lease that a report handed to {@link #submit} needs.
     */
    boolean takesExternalResults();

    /**
     * An external worker's result, to be applied together with others; the answer completes once that commit is durable
     * and names the tasks leased to the worker with it ({@code nextHandlers}: the handlers it has a free slot for).
     * Null when the caller applies the result itself, the plain way ({@link TaskResults}).
     */
    CompletableFuture<ExternalResults.Applied> submit(StepReport report, String owner, Set<String> nextHandlers);
}
