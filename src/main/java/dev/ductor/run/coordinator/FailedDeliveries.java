package dev.ductor.run.coordinator;

import dev.ductor.config.DuctorConfig;
import dev.ductor.metrics.DuctorMetrics;
import dev.ductor.queue.DeadLetters;
import dev.ductor.queue.QueueItem;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.util.List;
import java.util.UUID;

/**
 * What follows a tick that failed with an error (not a conflict, not a database outage): the delivery is counted
 * on the items, which stay leased and come back when their lease ends. A run whose items reach
 * {@code ductor.coordinator.max-failed-deliveries}, or that is parked already, is parked: its wakeups and timers are
 * dead-lettered instead of coming back every lease for ever. Nothing here reads the run, which may be unreadable.
 */
@ApplicationScoped
public class FailedDeliveries {

    private static final Logger LOG = Logger.getLogger(FailedDeliveries.class);

    @Inject DeadLetters deadLetters;
    @Inject DuctorMetrics metrics;
    @Inject DuctorConfig config;
    @Inject Clock clock;

    /** Records the failed delivery of {@code items}; returns how many items it dead-lettered (0: they come back). */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int record(UUID runId, List<QueueItem> items, RuntimeException error) {
        int failures = deadLetters.countFailure(items, describe(error));
        if (failures == 0) {
            return 0; // our leases ran out meanwhile: whoever holds the items now counts their own delivery
        }
        int max = config.coordinator().maxFailedDeliveries();
        if (failures < max && !deadLetters.isParked(runId)) {
            return 0;
        }
        int parked = deadLetters.park(runId, items, clock.instant());
        metrics.deadLettered(parked);
        LOG.errorf("run %s failed %d deliveries in a row (last: %s); %d of its items dead-lettered, the run is parked"
                + " until an operator retries it (POST /api/v1/runs/%s/dead-letters/retry)", runId, failures,
                describe(error), parked, runId);
        return parked;
    }

    private static String describe(RuntimeException error) {
        return error.getClass().getSimpleName() + ": " + error.getMessage();
    }
}
