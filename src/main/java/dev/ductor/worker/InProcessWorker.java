package dev.ductor.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.DuctorConfig;
import dev.ductor.config.JsonCodec;
import dev.ductor.config.PodIdentity;
import dev.ductor.error.ConflictException;
import dev.ductor.queue.PollingLoops;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.QueueSignal;
import dev.ductor.queue.TierWeights;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs task nodes whose handler ships in this process. Each thread claims one task at a time, runs it
 * outside any transaction (a step may take minutes), heartbeats its lease meanwhile, and reports through
 * {@link TaskResults} with the claim's lease token.
 */
@ApplicationScoped
public class InProcessWorker {

    private static final Logger LOG = Logger.getLogger(InProcessWorker.class);

    private final QueueRepository queue;
    private final StepHandlers handlers;
    private final TaskResults results;
    private final QueueSignal signal;
    private final DuctorConfig config;
    private final PodIdentity pod;
    private final JsonCodec json;
    private final Clock clock;
    private final TierWeights weights;
    private PollingLoops loops;
    private ScheduledExecutorService heartbeats;
    private final Map<Long, QueueItem> inFlight = new ConcurrentHashMap<>();

    @Inject
    public InProcessWorker(QueueRepository queue, StepHandlers handlers, TaskResults results, QueueSignal signal,
                           DuctorConfig config, PodIdentity pod, JsonCodec json, Clock clock, TierWeights weights) {
        this.weights = weights;
        this.queue = queue;
        this.handlers = handlers;
        this.results = results;
        this.signal = signal;
        this.config = config;
        this.pod = pod;
        this.json = json;
        this.clock = clock;
    }

    void start(@Observes StartupEvent event) {
        if (config.worker().enabled()) {
            heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "ductor-heartbeat");
                t.setDaemon(true);
                return t;
            });
            loops = PollingLoops.start("ductor-worker", config.worker().threads(), this::round, config.worker().idlePoll(), signal,
                    QueueSignal.Channel.STEP_WORKERS);
        }
    }

    /**
     * Lets running steps finish for a while, then hands the ones still running back to the queue, so that a
     * pod restart never costs a run one of its attempts.
     */
    void stop(@Observes ShutdownEvent event) {
        if (loops != null) {
            loops.stop(Duration.ofSeconds(10));
            heartbeats.shutdownNow();
            inFlight.values().forEach(task -> {
                try {
                    QuarkusTransaction.requiringNew().run(() -> queue.release(task.id(), task.leaseToken(), clock.instant()));
                    LOG.infof("released task %d of run %s unfinished for another pod", task.id(), task.runId());
                } catch (RuntimeException e) {
                    LOG.warnf("could not release task %d: %s; its lease will expire", task.id(), e.getMessage());
                }
            });
        }
    }

    public int round() {
        Duration lease = config.worker().lease();
        List<QueueItem> claimed = QuarkusTransaction.requiringNew().call(() -> queue.claimTasks(handlers.inProcessNames(),
                null, null, pod.name(), 1, lease, clock.instant(), weights));
        for (QueueItem task : claimed) {
            execute(task, lease);
        }
        return claimed.size();
    }

    private void execute(QueueItem task, Duration lease) {
        inFlight.put(task.id(), task);
        try {
            run(task, lease);
        } finally {
            inFlight.remove(task.id());
        }
    }

    private void run(QueueItem task, Duration lease) {
        long every = Math.max(1, lease.toMillis() / 3);
        ScheduledFuture<?> heartbeat = heartbeats.scheduleAtFixedRate(() -> {
            try {
                results.heartbeat(null, task.id(), task.leaseToken(), lease);
            } catch (RuntimeException lost) {
                LOG.debugf("heartbeat of task %d failed: %s", task.id(), lost.getMessage());
            }
        }, every, every, TimeUnit.MILLISECONDS);
        try {
            StepHandler handler = handlers.inProcess(task.handler()).orElseThrow();
            JsonNode input = task.payload() == null ? null : json.tree(task.payload());
            JsonNode output;
            try {
                output = handler.run(input);
            } catch (StepFailure failure) {
                heartbeat.cancel(false);
                results.fail(task.id(), task.leaseToken(), failure.getMessage(), failure.retryable());
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return; // shutting down: the lease runs out and another pod retries the step
            } catch (Exception e) {
                heartbeat.cancel(false);
                results.fail(task.id(), task.leaseToken(), e.getClass().getSimpleName() + ": " + e.getMessage(), true);
                return;
            }
            heartbeat.cancel(false);
            results.complete(task.id(), task.leaseToken(), output);
        } catch (ConflictException leaseLost) {
            LOG.infof("task %d of run %s: %s", task.id(), task.runId(), leaseLost.getMessage());
        } finally {
            heartbeat.cancel(false);
        }
    }
}
