package dev.ductor.worker;

import dev.ductor.database.DatabaseOutage;
import dev.ductor.error.ConflictException;
import dev.ductor.run.StepReport;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

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

    /** How long a result the database could not take waits before it is recorded again. */
    private static final Duration HOLD_PAUSE = Duration.ofMillis(500);

    private final TaskResults results;
    private final Duration lease;
    private final Clock clock;
    private volatile ScheduledExecutorService retries;

    InlineCommits(TaskResults results, Duration lease, Clock clock) {
        this.results = results;
        this.lease = lease;
        this.clock = clock;
    }

    @Override
    public void start() {
        retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "ductor-inline-commit-retry");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public void report(StepReport report) {
        record(report, null);
    }

    /** {@code heldUntil}: null on the first try, else the latest moment the result's lease may still live. */
    private void record(StepReport report, Instant heldUntil) {
        try {
            results.report(report);
        } catch (ConflictException leaseLost) {
            LOG.infof("task %d of run %s: %s", report.taskId(), report.runId(), leaseLost.getMessage());
        } catch (RuntimeException failed) {
            if (DatabaseOutage.isOutage(failed)) {
                if (heldUntil == null) {
                    LOG.warnf("the result of task %d of run %s could not be recorded: %s; it is held and recorded again"
                            + " once the database answers", report.taskId(), report.runId(), DatabaseOutage.summary(failed));
                }
                hold(report, heldUntil == null ? clock.instant().plus(lease) : heldUntil, failed);
                return;
            }
            LOG.warnf("the result of task %d of run %s could not be recorded (%s); its lease will expire and the step be"
                    + " dispatched again", report.taskId(), report.runId(), failed.getMessage());
        }
    }

    /**
     * Records the result again after a pause, until {@code until}: past it, the lease has run out and the reaper has
     * handed the step on, so the result would be fenced off anyway (a retry whose first try did commit is an identical
     * repeat, and changes nothing).
     */
    private void hold(StepReport report, Instant until, RuntimeException failed) {
        ScheduledExecutorService retrying = retries;
        if (retrying == null || !clock.instant().isBefore(until)) {
            LOG.warnf("the result of task %d of run %s could not be recorded while its lease lived (%s); the step will be"
                    + " dispatched again", report.taskId(), report.runId(), DatabaseOutage.summary(failed));
            return;
        }
        try {
            retrying.schedule(() -> record(report, until), HOLD_PAUSE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // the pod is stopping: the lease runs out and the step goes to another
        }
    }

    /** Held results are not kept past the pod: their leases run out, the steps go on elsewhere. */
    @Override
    public void drain(Duration grace) {
        ScheduledExecutorService retrying = retries;
        if (retrying != null) {
            retrying.shutdownNow();
        }
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
