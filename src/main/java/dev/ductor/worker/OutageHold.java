package dev.ductor.worker;

import dev.ductor.run.StepReport;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a step's result that the database could not take, and hands it back for another try after a pause, for as long
 * as its lease may live: a step that succeeded must not be run again, let alone fail its run, because a database
 * failover cut its commit off. Past that, its lease has run out and the reaper has handed the step on, so the result
 * would be fenced off anyway. Whether it is applied at all is decided by its lease token, as for any report, however
 * late it comes. Both commit strategies hold their results through an outage with it.
 */
final class OutageHold {

    private static final Logger LOG = Logger.getLogger(OutageHold.class);

    /** How long a held result waits before it is tried again. */
    private static final Duration PAUSE = Duration.ofMillis(500);

    private final Clock clock;
    private final Duration lease;
    private final String threadName;
    /** Results held, by task, with the latest moment their lease may still live. */
    private final Map<Long, Instant> heldUntil = new ConcurrentHashMap<>();
    private volatile ScheduledExecutorService retries;

    OutageHold(Clock clock, Duration lease, String threadName) {
        this.clock = clock;
        this.lease = lease;
        this.threadName = threadName;
    }

    void start() {
        retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, threadName);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Held results are not kept past the pod: their leases run out, the steps go on elsewhere. */
    void stop() {
        ScheduledExecutorService retrying = retries;
        if (retrying != null) {
            retrying.shutdownNow();
        }
    }

    /** Runs {@code retry} after the pause, unless the result's lease can no longer live or the pod is stopping. */
    void hold(StepReport report, Runnable retry) {
        Instant now = clock.instant();
        Instant until = heldUntil.computeIfAbsent(report.taskId(), id -> now.plus(lease));
        ScheduledExecutorService retrying = retries;
        if (!now.isBefore(until) || retrying == null) {
            heldUntil.remove(report.taskId());
            LOG.warnf("the result of task %d of run %s could not be recorded while its lease lived; the step will be"
                    + " dispatched again", report.taskId(), report.runId());
            return;
        }
        try {
            retrying.schedule(retry, PAUSE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            heldUntil.remove(report.taskId()); // the pod is stopping: the lease runs out and the step goes to another
        }
    }

    boolean isHeld(StepReport report) {
        return heldUntil.containsKey(report.taskId());
    }

    /** The result went in, or was fenced off, or failed for good: it is held no longer. */
    void settled(StepReport report) {
        if (!heldUntil.isEmpty()) { // the common case, every commit of a healthy database, costs no map operation
            heldUntil.remove(report.taskId());
        }
    }
}
