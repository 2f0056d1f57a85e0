package dev.ductor.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.DuctorConfig;
import dev.ductor.config.JsonCodec;
import dev.ductor.config.CallerPermits;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.NotFoundException;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.TaskClaim;
import dev.ductor.queue.QueueSignal;
import dev.ductor.queue.TierWeights;
import dev.ductor.run.RunQueries;
import dev.ductor.workflow.model.Handlers;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The external step workers' side of the task queue, beside the {@link InProcessWorker}: a claim that long-polls until
 * a task is due or the wait is over, and heartbeats and results scoped to the caller's tenant (another tenant's task
 * is not found, as its run would not be). Results are fenced by the lease token in {@link TaskResults}.
 */
@ApplicationScoped
public class ExternalTasks {

    /** Between two claims of a long poll when no commit of this pod woke it: work queued by other pods is found then. */
    private static final Duration POLL = Duration.ofMillis(250);

    @Inject
    TaskClaim queue;

    @Inject
    QueueSignal signal;

    @Inject
    TaskResults results;

    @Inject
    RunQueries runs;

    @Inject
    DuctorConfig config;

    @Inject
    JsonCodec json;

    @Inject
    Clock clock;

    @Inject
    TierWeights weights;

    public record ClaimedTask(String taskId, UUID runId, String node, int attempt, String handler, JsonNode input,
                              UUID leaseToken, Instant leaseExpiresAt) {
    }

    /** Long polls each caller and each tenant hold open here: bounded, since each holds a worker thread for its wait. */
    private final CallerPermits longPolls = new CallerPermits(new CallerPermits.Kind("long-polls",
            "ductor.limits.long-polls-per-caller", "ductor.limits.long-polls-per-tenant", "long-poll claims"));

    /** The longest wait a claim may ask for ({@code ductor.worker.max-claim-wait}). */
    public int maxWaitSeconds() {
        return (int) config.worker().maxClaimWait().toSeconds();
    }

    /**
     * Claims up to {@code max} due tasks of the handlers, waiting up to {@code wait} while none is due. A wait longer
     * than {@code ductor.worker.max-claim-wait} is refused, naming the request's field; so is a handler that is not
     * {@code ext:<name>}: in-process tasks (http, echo...) are this pod's own, and a worker token that claimed one would
     * read its input and could forge its result.
     */
    public List<ClaimedTask> claim(String tenant, String subject, List<String> handlers, String pool, String workerId, int max, Duration wait)
            throws InterruptedException {
        for (String handler : handlers) {
            if (!Handlers.isExternal(handler)) {
                throw new BadRequestException("handlers", "handlers may only name external handlers, " + Handlers.EXTERNAL_PREFIX
                        + "<name>: '" + handler + "' is not one, and in-process tasks cannot be claimed");
            }
        }
        if (wait.isNegative() || wait.toSeconds() > maxWaitSeconds()) {
            throw new BadRequestException("waitSeconds", "waitSeconds must be a whole number from 0 to " + maxWaitSeconds());
        }
        if (wait.isZero()) {
            return claimOnce(tenant, handlers, pool, workerId, max, wait);
        }
        try (CallerPermits.Permit held = longPolls.acquire(tenant, subject, config.limits().longPollsPerCaller(),
                config.limits().longPollsPerTenant())) {
            return claimOnce(tenant, handlers, pool, workerId, max, wait);
        }
    }

    private List<ClaimedTask> claimOnce(String tenant, List<String> handlers, String pool, String workerId, int max,
                                        Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        List<QueueItem> claimed;
        do {
            claimed = QuarkusTransaction.requiringNew().call(() -> queue.claimTasks(handlers, tenant, pool,
                    tenant + "/" + workerId, max, config.worker().lease(), clock.instant(), weights));
            long left = deadline - System.nanoTime();
            if (!claimed.isEmpty() || left <= 0) {
                break;
            }
            // Woken at once by a commit in this pod.
            signal.await(QueueSignal.Channel.EXTERNAL_CLAIMS, Duration.ofNanos(Math.min(left, POLL.toNanos())));
        } while (true);
        return claimed.stream().map(item -> new ClaimedTask(Long.toString(item.id()), item.runId(), item.nodeId(),
                item.attempt(), item.handler(), item.payload() == null ? null : json.tree(item.payload()),
                item.leaseToken(), item.leaseExpiresAt())).toList();
    }

    public Instant heartbeat(String tenant, String taskId, long id, UUID lease) {
        return results.heartbeat(tenant, own(tenant, taskId, id), lease, config.worker().lease());
    }

    public void complete(String tenant, String taskId, long id, UUID lease, JsonNode output) {
        results.complete(tenant, own(tenant, taskId, id), lease, output);
    }

    public void fail(String tenant, String taskId, long id, UUID lease, String error, boolean retryable) {
        results.fail(tenant, own(tenant, taskId, id), lease, error, retryable);
    }

    private long own(String tenant, String taskId, long id) {
        if (!runs.taskBelongsTo(tenant, id)) {
            throw new NotFoundException("Task", taskId);
        }
        return id;
    }
}
