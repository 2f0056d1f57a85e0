package dev.ductor.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.DuctorConfig;
import dev.ductor.config.JsonCodec;
import dev.ductor.config.CallerPermits;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.ConflictException;
import dev.ductor.error.NotFoundException;
import dev.ductor.error.PodStoppingException;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.TaskClaim;
import dev.ductor.queue.QueueSignal;
import dev.ductor.queue.TaskLeases;
import dev.ductor.queue.TierWeights;
import dev.ductor.run.StepReport;
import dev.ductor.run.read.RunQueries;
import dev.ductor.workflow.model.Handlers;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The external step workers' side of the task queue, beside the {@link InProcessWorker}: a claim that long-polls until
 * a task is due or the wait is over, and heartbeats and results scoped to the caller's tenant (another tenant's task
 * is not found, as its run would not be). Results are fenced by the lease token in {@link TaskResults}.
 *
 * <p>A claim never leases a task to nobody: a long poll whose client has hung up ends, and tasks it took in the
 * instant the client left are handed back at once. A pod that begins to stop answers its long polls, and every claim
 * after, with 503 {@code pod-stopping} (the workers go to another pod), while heartbeats and reports of the tasks it
 * leased are still served.
 */
@ApplicationScoped
public class ExternalTasks {

    private static final Logger LOG = Logger.getLogger(ExternalTasks.class);

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

    @Inject
    TaskLeases leases;

    @Inject
    CommitStrategy commits;

    /** Set once this pod begins to stop: no claim is served any more. */
    private volatile boolean stopping;

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
        return claim(tenant, subject, handlers, pool, workerId, max, wait, () -> false);
    }

    /**
     * As above, for a caller that can tell when its client has hung up ({@code clientGone}): the long poll ends then,
     * and never leases a task to nobody.
     */
    public List<ClaimedTask> claim(String tenant, String subject, List<String> handlers, String pool, String workerId, int max,
                                   Duration wait, BooleanSupplier clientGone) throws InterruptedException {
        for (String handler : handlers) {
            if (!Handlers.isExternal(handler)) {
                throw new BadRequestException("handlers", "handlers may only name external handlers, " + Handlers.EXTERNAL_PREFIX
                        + "<name>: '" + handler + "' is not one, and in-process tasks cannot be claimed");
            }
        }
        if (wait.isNegative() || wait.toSeconds() > maxWaitSeconds()) {
            throw new BadRequestException("waitSeconds", "waitSeconds must be a whole number from 0 to " + maxWaitSeconds());
        }
        if (stopping) {
            throw stopped();
        }
        if (wait.isZero()) {
            return claimOnce(tenant, handlers, pool, workerId, max, wait, clientGone);
        }
        try (CallerPermits.Permit held = longPolls.acquire(tenant, subject, config.limits().longPollsPerCaller(),
                config.limits().longPollsPerTenant())) {
            return claimOnce(tenant, handlers, pool, workerId, max, wait, clientGone);
        }
    }

    private List<ClaimedTask> claimOnce(String tenant, List<String> handlers, String pool, String workerId, int max,
                                        Duration wait, BooleanSupplier clientGone) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        List<QueueItem> claimed;
        do {
            if (stopping) {
                throw stopped(); // nothing taken yet: the worker polls another pod after Retry-After
            }
            if (clientGone.getAsBoolean()) {
                return List.of(); // nobody to answer: the poll ends, the permit and the thread are freed
            }
            claimed = QuarkusTransaction.requiringNew().call(() -> {
                List<QueueItem> taken = queue.claimTasks(handlers, tenant, pool, tenant + "/" + workerId, max,
                        config.worker().lease(), clock.instant(), weights);
                if (!taken.isEmpty() && clientGone.getAsBoolean()) {
                    QuarkusTransaction.setRollbackOnly(); // the client left while the claim ran: lease nothing
                    return List.<QueueItem>of();
                }
                return taken;
            });
            long left = deadline - System.nanoTime();
            if (!claimed.isEmpty() || left <= 0) {
                break;
            }
            // Woken at once by a commit in this pod (or by the pod beginning to stop).
            signal.await(QueueSignal.Channel.EXTERNAL_CLAIMS, Duration.ofNanos(Math.min(left, POLL.toNanos())));
        } while (true);
        if (!claimed.isEmpty() && clientGone.getAsBoolean()) {
            handBack(claimed); // gone between the claim's check and its commit: nobody will run these
            return List.of();
        }
        return claimed(claimed);
    }

    /** Hands back tasks leased to a client that is gone: claimable again at once, no attempt spent. */
    private void handBack(List<QueueItem> claimed) {
        try {
            QuarkusTransaction.requiringNew().run(() -> {
                Instant now = clock.instant();
                claimed.forEach(task -> leases.release(task.id(), task.leaseToken(), now));
                signal.afterCommit(QueueSignal.Channel.EXTERNAL_CLAIMS);
            });
            LOG.debugf("a claim's client hung up as it was answered: %d task(s) handed back", claimed.size());
        } catch (RuntimeException e) {
            LOG.infof("a claim's client hung up; %d task(s) could not be handed back (%s), their leases will run out",
                    claimed.size(), e.getMessage());
        }
    }

    /**
     * Hands a task back unfinished, on its worker's word: claimable again at once, and no attempt spent (the node's
     * attempt is the same one, dispatched again). Refused with 409 when this token no longer holds it.
     */
    public void release(String tenant, String taskId, long id, UUID lease) {
        own(tenant, taskId, id);
        results.release(id, lease);
    }

    /**
     * The pod begins to stop (the pre-shutdown delay, before the HTTP server drains its requests): long polls end at
     * once with 503 pod-stopping, so none holds the drain to its timeout, and none runs on into a container that is
     * gone.
     */
    void beginStopping(@Observes ShutdownDelayInitiatedEvent event) {
        beginStopping();
    }

    /** In case the delay's event did not come (it is fired only when the delay is enabled). */
    void stop(@Observes @Priority(1) ShutdownEvent event) {
        beginStopping();
    }

    void beginStopping() {
        stopping = true;
        signal.nudge(QueueSignal.Channel.EXTERNAL_CLAIMS);
    }

    /** Whether this pod has begun to stop: the worker-facing readiness of the claim endpoint. */
    public boolean isStopping() {
        return stopping;
    }

    private static PodStoppingException stopped() {
        return new PodStoppingException("the claim (no task was leased)");
    }

    public Instant heartbeat(String tenant, String taskId, long id, UUID lease) {
        return results.heartbeat(tenant, own(tenant, taskId, id), lease, config.worker().lease());
    }

    /**
     * Records a completion; returns the tasks leased to the worker with it, when {@code next} named the handlers it has
     * a free slot for (its run's next step first), when the local dispatch is eager. Through the {@link CommitStrategy}
     * when it takes the result (the group commit), else (and for a report fenced off there, to tell an identical repeat
     * from a lost lease) through the run's inbox; when the strategy takes none (inline), straight there, without first
     * looking up the lease the group commit would need.
     */
    public List<ClaimedTask> complete(String tenant, String taskId, long id, UUID lease, JsonNode output, List<String> next) {
        return report(tenant, taskId, id, lease, next, task -> StepReport.completed(id, lease, task.runId(), task.node(),
                task.attempt(), task.tenant(), task.tier(), output), () -> results.complete(tenant, own(tenant, taskId, id), lease, output));
    }

    public void complete(String tenant, String taskId, long id, UUID lease, JsonNode output) {
        complete(tenant, taskId, id, lease, output, List.of());
    }

    public List<ClaimedTask> fail(String tenant, String taskId, long id, UUID lease, String error, boolean retryable,
                                  List<String> next) {
        return report(tenant, taskId, id, lease, next, task -> StepReport.failed(id, lease, task.runId(), task.node(),
                task.attempt(), task.tenant(), task.tier(), error, retryable),
                () -> results.fail(tenant, own(tenant, taskId, id), lease, error, retryable));
    }

    public void fail(String tenant, String taskId, long id, UUID lease, String error, boolean retryable) {
        fail(tenant, taskId, id, lease, error, retryable, List.of());
    }

    private List<ClaimedTask> report(String tenant, String taskId, long id, UUID lease, List<String> next,
                                     java.util.function.Function<TaskLeases.Taken, StepReport> report, Runnable plainPath) {
        checkExternal(next == null ? List.of() : next, "next.handlers");
        if (!commits.takesExternalResults()) {
            plainPath.run();
            return List.of();
        }
        TaskLeases.Held held = results.held(tenant, id, lease).orElse(null);
        // A stopping pod leases nothing more, not even eagerly.
        Set<String> wanted = stopping || next == null ? Set.of() : Set.copyOf(next);
        CompletableFuture<ExternalResults.Applied> answer = held == null ? null
                : commits.submit(report.apply(held.task()), held.owner(), wanted);
        ExternalResults.Applied applied = await(answer,
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ExternalResults.waitMillis()));
        if (applied != null && !applied.fenced()) {
            return claimed(applied.next());
        }
        plainPath.run(); // 200 for an identical repeat, 409 for a lost lease, 404 for another tenant's task
        return List.of();
    }

    /** One result of a batched report: {@code output} when it succeeded, else {@code error} and {@code retryable}. */
    public record BatchedResult(String taskId, long id, UUID lease, boolean succeeded, JsonNode output, String error,
                                boolean retryable) {
    }

    /** What became of one result of a batch: {@code recorded}, or the problem type its own report would have had. */
    public record BatchedOutcome(String taskId, String status,
                                 @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String detail) {
    }

    /** A batch's outcomes, in its order, and the tasks leased to its worker with it. */
    public record BatchAnswer(List<BatchedOutcome> results, List<ClaimedTask> next) {
    }

    /**
     * Several results in one request: all go into the same group commit (where one report each would take a request,
     * a token check, a look-up and a share of a commit apiece), and up to {@code nextMax} of the steps that commit
     * dispatches for {@code next}'s handlers are leased to the worker with the answer. Each result is fenced and
     * applied on its own, as its own report would be: a lost lease or another tenant's task is an outcome of that
     * result, not of the batch.
     */
    public BatchAnswer reportBatch(String tenant, List<BatchedResult> batch, List<String> next, int nextMax) {
        checkExternal(next == null ? List.of() : next, "next.handlers");
        Set<String> wanted = stopping || next == null ? Set.of() : Set.copyOf(next);
        List<CompletableFuture<ExternalResults.Applied>> answers = new java.util.ArrayList<>(batch.size());
        java.util.Map<Long, TaskLeases.Held> holding = !commits.takesExternalResults() ? java.util.Map.of()
                : results.heldAll(tenant, batch.stream().map(BatchedResult::id).toList(),
                        batch.stream().map(BatchedResult::lease).toList());
        int offered = 0;
        for (BatchedResult result : batch) {
            TaskLeases.Held held = holding.get(result.id());
            Set<String> slot = offered < nextMax ? wanted : Set.of();
            CompletableFuture<ExternalResults.Applied> answer = held == null ? null
                    : commits.submit(stepReport(result, held.task()), held.owner(), slot);
            if (answer != null && !slot.isEmpty()) {
                offered++;
            }
            answers.add(answer);
        }
        List<BatchedOutcome> outcomes = new java.util.ArrayList<>(batch.size());
        List<QueueItem> leased = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ExternalResults.waitMillis());
        for (int i = 0; i < batch.size(); i++) {
            BatchedResult result = batch.get(i);
            ExternalResults.Applied applied = await(answers.get(i), deadline);
            if (applied != null && !applied.fenced()) {
                leased.addAll(applied.next());
                outcomes.add(new BatchedOutcome(result.taskId(), "recorded", null));
                continue;
            }
            try { // 200 for an identical repeat, 409 for a lost lease, 404 for another tenant's task
                long id = own(tenant, result.taskId(), result.id());
                if (result.succeeded()) {
                    results.complete(tenant, id, result.lease(), result.output());
                } else {
                    results.fail(tenant, id, result.lease(), result.error(), result.retryable());
                }
                outcomes.add(new BatchedOutcome(result.taskId(), "recorded", null));
            } catch (ConflictException | NotFoundException refused) {
                outcomes.add(new BatchedOutcome(result.taskId(), refused.type(), refused.getMessage()));
            }
        }
        return new BatchAnswer(outcomes, claimed(leased));
    }

    private static StepReport stepReport(BatchedResult result, TaskLeases.Taken task) {
        return result.succeeded()
                ? StepReport.completed(result.id(), result.lease(), task.runId(), task.node(), task.attempt(), task.tenant(),
                        task.tier(), result.output())
                : StepReport.failed(result.id(), result.lease(), task.runId(), task.node(), task.attempt(), task.tenant(),
                        task.tier(), result.error(), result.retryable());
    }

    /** The group commit's answer, or null (take the plain path) when it is not there by the deadline. */
    private ExternalResults.Applied await(CompletableFuture<ExternalResults.Applied> answer, long deadline) {
        if (answer == null) {
            return null;
        }
        try {
            return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw stopped();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException failed ? failed : new IllegalStateException(e.getCause());
        } catch (TimeoutException slow) {
            return null; // the plain path is safe: whichever takes the task row first decides
        }
    }

    private static void checkExternal(List<String> handlers, String field) {
        for (String handler : handlers) {
            if (!Handlers.isExternal(handler)) {
                throw new BadRequestException(field, field + " may only name external handlers, " + Handlers.EXTERNAL_PREFIX
                        + "<name>: '" + handler + "' is not one");
            }
        }
    }

    private List<ClaimedTask> claimed(List<QueueItem> items) {
        return items.stream().map(item -> new ClaimedTask(Long.toString(item.id()), item.runId(), item.nodeId(),
                item.attempt(), item.handler(), item.payload() == null ? null : json.tree(item.payload()),
                item.leaseToken(), item.leaseExpiresAt())).toList();
    }

    private long own(String tenant, String taskId, long id) {
        if (!runs.taskBelongsTo(tenant, id)) {
            throw new NotFoundException("Task", taskId);
        }
        return id;
    }
}
