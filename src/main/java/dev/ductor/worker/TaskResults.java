package dev.ductor.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.config.JsonCodec;
import dev.ductor.error.ConflictException;
import dev.ductor.queue.TaskLeases;
import dev.ductor.queue.QueueSignal;
import dev.ductor.run.RunInbox;
import dev.ductor.run.StepReport;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Where a step's outcome enters the run, for in-process and external workers alike. The task row is
 * taken only with the lease token the claim issued (fencing: a worker whose lease expired and was
 * re-claimed cannot report), the outcome goes to the run's inbox under one key per node attempt (applied
 * once however often it arrives), and a wakeup asks the coordinator to tick. All in one transaction.
 */
@ApplicationScoped
public class TaskResults {

    @Inject TaskLeases leases;
    @Inject RunInbox inbox;
    @Inject JsonCodec json;
    @Inject QueueSignal signal;
    @Inject Clock clock;
    @Inject dev.ductor.metrics.DuctorMetrics metrics;

    /** {@code tenant} scopes an external worker to its own tasks; null for in-process workers. */
    @Transactional
    public void complete(String tenant, long taskId, UUID leaseToken, JsonNode output) {
        report(tenant, taskId, leaseToken, StepReport.payload(json.mapper(), true, output, null, false, leaseToken));
    }

    @Transactional
    public void fail(String tenant, long taskId, UUID leaseToken, String error, boolean retryable) {
        report(tenant, taskId, leaseToken, StepReport.payload(json.mapper(), false, null, error, retryable, leaseToken));
    }

    /** An in-process step's result on its own, through the inbox (when its group commit failed as a whole). */
    @Transactional
    public void report(StepReport report) {
        if (report.completed()) {
            complete(null, report.taskId(), report.leaseToken(), report.output());
        } else {
            fail(null, report.taskId(), report.leaseToken(), report.error(), report.retryable());
        }
    }

    /** For in-process workers, which may report any tenant's task. */
    @Transactional
    public void complete(long taskId, UUID leaseToken, JsonNode output) {
        complete(null, taskId, leaseToken, output);
    }

    @Transactional
    public void fail(long taskId, UUID leaseToken, String error, boolean retryable) {
        fail(null, taskId, leaseToken, error, retryable);
    }

    /**
     * A lease that ran out: the tick dispatches the node again outside its retry policy while {@code retryBudget}
     * lasts ({@link dev.ductor.run.core.Input.LeaseExpired}). The payload is a retryable failure as well, read so
     * by a pod that does not know {@code leaseExpired} yet.
     */
    @Transactional
    public void leaseExpired(dev.ductor.queue.QueueItem task, int retryBudget) {
        ObjectNode payload = StepReport.payload(json.mapper(), false, null,
                "lease expired: the worker stopped heartbeating (crashed, stalled, or lost the database)", true,
                task.leaseToken());
        payload.put("leaseExpired", true);
        payload.put("retryBudget", retryBudget);
        deliver(new TaskLeases.Taken(task.runId(), task.nodeId(), task.attempt(), task.tenant(), task.tier()), task.id(), payload);
    }

    /** Extends the lease; the worker must stop and drop its work when this says the lease was lost. */
    @Transactional
    public Instant heartbeat(String tenant, long taskId, UUID leaseToken, java.time.Duration lease) {
        Instant until = clock.instant().plus(lease);
        if (!leases.extendLease(tenant, taskId, leaseToken, until)) {
            throw leaseLost(taskId);
        }
        return until;
    }

    /**
     * The task this token holds now, read without taking it (an external report about to be group-committed): one
     * self-committing read, no transaction.
     */
    public java.util.Optional<TaskLeases.Held> held(String tenant, long taskId, UUID leaseToken) {
        return leases.held(tenant, taskId, leaseToken);
    }

    /** {@link #held} for a batch: by task id, the tasks these tokens hold now. */
    public java.util.Map<Long, TaskLeases.Held> heldAll(String tenant, List<Long> ids, List<UUID> tokens) {
        return leases.heldAll(tenant, ids, tokens);
    }

    /**
     * Hands a task back unfinished (its worker is draining): unleased and due now, for any worker, on the same attempt,
     * so none is spent; the old token no longer holds it, so a late report with it is refused. 409 when the token
     * does not hold the task (lost, superseded, or reported already).
     */
    @Transactional
    public void release(long taskId, UUID leaseToken) {
        if (!leases.release(taskId, leaseToken, clock.instant())) {
            throw leaseLost(taskId);
        }
        signal.afterCommit(QueueSignal.Channel.EXTERNAL_CLAIMS);
    }

    private void report(String tenant, long taskId, UUID leaseToken, ObjectNode payload) {
        TaskLeases.Taken task = leases.take(tenant, taskId, leaseToken).orElse(null);
        if (task == null) {
            if (isIdenticalRepeat(taskId, payload)) {
                return; // the same worker saying the same thing again: already applied, nothing to do
            }
            metrics.staleReport(tenant == null ? "in-process" : "api");
            throw leaseLost(taskId);
        }
        deliver(task, taskId, payload);
    }

    private void deliver(TaskLeases.Taken task, long taskId, ObjectNode payload) {
        inbox.deliverAndWake(RunInbox.Delivery.result(task.runId(), task.tenant(), task.tier(), task.node(), task.attempt(),
                taskId, json.write(payload)), clock.instant());
    }

    private boolean isIdenticalRepeat(long taskId, ObjectNode payload) {
        String stored = inbox.resultOf(taskId);
        return stored != null && Objects.equals(json.tree(stored), payload);
    }

    private static ConflictException leaseLost(long taskId) {
        return new ConflictException("lease-lost", "Task " + taskId + " is no longer leased with this token: its lease"
                + " expired and it was claimed again, an operator retried or skipped its node, or it finished."
                + " Nothing was recorded; stop and drop this attempt.",
                Map.of("taskId", taskId));
    }
}
