package dev.ductor.worker;

import dev.ductor.config.DuctorConfig;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.TaskLeases;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * Turns expired task leases into new attempts. A worker that dies mid-task (its JVM killed, its host gone, its
 * database failed over under it) stops heartbeating; once its lease runs out the task row is taken off the queue
 * and "lease expired" goes to the run's inbox, with the budget of such retries ({@code
 * ductor.worker.lease-expiry-retries}): the tick dispatches the node again without spending its retry policy's
 * attempts (a lost lease is not the handler's failure), or fails it once the budget is spent; a late report from
 * the dead worker is fenced off by its stale lease token.
 * Several pods may reap at once: {@code SKIP LOCKED} hands each expired row to one of them.
 */
@ApplicationScoped
public class LeaseReaper {

    private static final Logger LOG = Logger.getLogger(LeaseReaper.class);
    private static final int BATCH = 100;

    @Inject TaskLeases leases;
    @Inject TaskResults results;
    @Inject dev.ductor.run.read.RunQueries runs;
    @Inject DuctorConfig config;
    @Inject Clock clock;

    @Scheduled(every = "${ductor.worker.reap-interval:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void trigger() {
        if (config.worker().reaperEnabled()) {
            // The next pass reaps what this one could not.
            DatabaseOutage.skipIfUnreachable(LOG, "reaping expired leases failed", () -> runOnce(clock.instant()));
        }
    }

    /** Reaps every lease expired as of {@code now}; returns how many. */
    public int runOnce(Instant now) {
        int reaped = 0;
        int budget = config.worker().leaseExpiryRetries();
        List<QueueItem> expired;
        do {
            // One transaction per batch: the rows leave the queue and their failures enter the inboxes together.
            expired = QuarkusTransaction.requiringNew().call(() -> {
                List<QueueItem> batch = leases.takeExpiredTaskLeases(now, BATCH);
                for (QueueItem task : batch) {
                    if (runs.exists(task.runId())) {
                        results.leaseExpired(task, budget);
                    } else { // its run was deleted: nobody is left to tell, and delivering would fail the whole batch
                        LOG.infof("task %d of run %s: its lease expired and its run no longer exists; the task is dropped",
                                task.id(), task.runId());
                    }
                }
                return batch;
            });
            reaped += expired.size();
        } while (expired.size() == BATCH);
        return reaped;
    }
}
