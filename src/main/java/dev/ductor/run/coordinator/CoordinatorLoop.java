package dev.ductor.run.coordinator;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.PodIdentity;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.queue.PollingLoops;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.QueueSignal;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * Claims due wakeups and timers and hands each run's batch to the {@link Coordinator}; a batch whose tick errors
 * goes to {@link FailedDeliveries}, which parks a run that fails on every delivery.
 */
@ApplicationScoped
public class CoordinatorLoop {

    private static final Logger LOG = Logger.getLogger(CoordinatorLoop.class);
    private static final List<QueueKind> KINDS = List.of(QueueKind.WAKEUP, QueueKind.TIMER);

    @Inject QueueRepository queue;
    @Inject Coordinator coordinator;
    @Inject QueueSignal signal;
    @Inject FailedDeliveries failedDeliveries;
    @Inject DuctorConfig config;
    @Inject PodIdentity pod;
    @Inject Clock clock;
    private final RunLanes lanes = new RunLanes();
    private PollingLoops loops;

    void start(@Observes StartupEvent event) {
        if (config.coordinator().enabled()) {
            loops = PollingLoops.start("ductor-coordinator", config.coordinator().threads(), this::round,
                    config.coordinator().idlePoll(), signal,
                    QueueSignal.Channel.COORDINATORS);
        }
    }

    void stop(@Observes ShutdownEvent event) {
        if (loops != null) {
            loops.stop(Duration.ofSeconds(10));
        }
    }

    /** One claim and the ticks for it ({@link #tick}); returns how many items were claimed. */
    public int round() {
        List<QueueItem> claimed = QuarkusTransaction.requiringNew().call(() -> queue.claim(KINDS, pod.name(),
                config.coordinator().batchSize(), config.coordinator().lease(), clock.instant()));
        tick(claimed);
        return claimed.size();
    }

    /**
     * Ticks each run of a claim once. A run another thread of this pod is ticking, or retrying on the retry lane, is
     * handed to that tick ({@link RunLanes}); a run handed to this thread while it ticked goes round again after the
     * batch's other runs, so a hot run does not hold them up.
     */
    void tick(List<QueueItem> claimed) {
        Map<UUID, List<QueueItem>> byRun = claimed.stream()
                .collect(Collectors.groupingBy(QueueItem::runId, LinkedHashMap::new, Collectors.toList()));
        Deque<Map.Entry<UUID, List<QueueItem>>> turns = new ArrayDeque<>();
        byRun.forEach((runId, items) -> {
            List<QueueItem> mine = lanes.enter(runId, items);
            if (!mine.isEmpty()) {
                turns.add(Map.entry(runId, mine));
            }
        });
        for (Map.Entry<UUID, List<QueueItem>> turn; (turn = turns.poll()) != null; ) {
            UUID runId = turn.getKey();
            CompletableFuture<Void> ticked = tickHoldingLane(runId, turn.getValue());
            if (ticked == null) {
                continue;
            }
            if (ticked.isDone()) {
                List<QueueItem> handed = lanes.next(runId);
                if (!handed.isEmpty()) {
                    turns.add(Map.entry(runId, handed));
                }
            } else {
                ticked.whenComplete((done, error) -> afterRetries(runId));
            }
        }
    }

    /** The tick of the lane's holder; null when it failed, and the lane is left. */
    private CompletableFuture<Void> tickHoldingLane(UUID runId, List<QueueItem> items) {
        try {
            return coordinator.process(runId, items).toCompletableFuture();
        } catch (RuntimeException e) {
            failed(runId, items, e);
            lanes.leave(runId);
            return null;
        }
    }

    /**
     * A run's retries have ended on the retry lane: what was handed over meanwhile is ticked now, on the thread that ended
     * them, the lane still held, until nothing more was handed over and the lane is free.
     */
    private void afterRetries(UUID runId) {
        for (List<QueueItem> handed = lanes.next(runId); !handed.isEmpty(); handed = lanes.next(runId)) {
            CompletableFuture<Void> ticked = tickHoldingLane(runId, handed);
            if (ticked == null) {
                return;
            }
            if (!ticked.isDone()) {
                ticked.whenComplete((done, error) -> afterRetries(runId));
                return;
            }
        }
    }

    /**
     * Left leased: the items come back when the lease ends, and the error is metered as such. An outage is not the
     * run's fault and is not counted against it; any other error is, and a run that keeps failing is parked.
     */
    private void failed(UUID runId, List<QueueItem> items, RuntimeException e) {
        if (DatabaseOutage.isOutage(e)) {
            LOG.warnf("tick of run %s failed: the database is unreachable (%s); redelivered when its lease ends", runId, e.getMessage());
            return;
        }
        LOG.errorf(e, "tick of run %s failed", runId);
        try {
            failedDeliveries.record(runId, items, e);
        } catch (RuntimeException notRecorded) {
            LOG.warnf("the failed delivery of run %s could not be recorded (%s); redelivered when its lease ends",
                    runId, notRecorded.getMessage());
        }
    }
}
