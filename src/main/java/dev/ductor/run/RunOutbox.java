package dev.ductor.run;

import dev.ductor.config.JsonCodec;
import dev.ductor.database.TransactionEnd;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.LeaseHandBack;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.QueueSignal;
import dev.ductor.run.core.Effect;
import dev.ductor.workflow.model.Handlers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;

/**
 * A tick's effects as queue rows, written in the tick's own transaction (the outbox), and the loops of this JVM
 * to wake once that transaction commits: step workers for in-process tasks, long-polling external claims for
 * {@code ext:} tasks, coordinators for wakeups and timers already due.
 */
@ApplicationScoped
public class RunOutbox {

    @Inject QueueRepository queue;
    @Inject QueueSignal signal;
    @Inject JsonCodec json;
    @Inject TransactionSynchronizationRegistry transactions;
    @Inject LeaseHandBack handBack;

    /**
     * The queue rows for one run's effects, made at {@code now}.
     *
     * <p>A task due now is queued as if it had been due since its run started: claims take the oldest due task
     * first, so a started run's next step goes before the first steps of runs started after it. Under a backlog,
     * runs then finish in about the order they started, instead of every run waiting for the first step of every
     * later one (breadth-first). A task due later (a retry's backoff) keeps its time. The queue's age metric reads
     * the row's {@code created_at} beside it, so it is not inflated by this.
     */
    public List<NewQueueItem> items(UUID runId, String tenant, String tier, List<Effect> effects, Instant now) {
        List<NewQueueItem> items = new ArrayList<>(effects.size());
        for (Effect effect : effects) {
            if (effect instanceof Effect.DispatchTask task) {
                items.add(NewQueueItem.task(tenant, tier, runId, task.node(), task.attempt(), task.handler(), task.pool(),
                        json.write(task.input()), claimOrder(runId, task.availableAt(), now)));
            } else if (effect instanceof Effect.ScheduleTimer timer) {
                items.add(NewQueueItem.timer(tenant, tier, runId, timer.node(), timer.dueAt()));
            }
        }
        return items;
    }

    private static Instant claimOrder(UUID runId, Instant due, Instant now) {
        if (due.isAfter(now)) {
            return due;
        }
        Instant started = RunIds.createdAt(runId);
        return started.isBefore(due) ? started : due;
    }

    /** Inserts the rows (one batch) and wakes the loops that can take them when the transaction commits. */
    public void write(Collection<NewQueueItem> items, Instant now) {
        queue.enqueue(items, now);
        wakeFor(items, now);
    }

    /**
     * A commit's items split for eager dispatch: those leased to this pod, on slots reserved for exactly them, and
     * the rest, queued for any pod.
     */
    public record Dispatch(LocalSteps.Reservation reserved, List<QueueRepository.LeasedItem> leased,
                           List<NewQueueItem> queued) {
    }

    /**
     * Reserves slots of {@code local} for the steps among {@code items} this pod can run now, and splits the items
     * accordingly; whoever writes them hands them over with {@link #handOver} once the write has ended.
     */
    public Dispatch split(List<NewQueueItem> items, LocalSteps local, Instant now) {
        LocalSteps.Reservation reserved = local.reserveFor(items, now);
        if (reserved.slots() == 0) {
            return new Dispatch(reserved, List.of(), items);
        }
        List<List<NewQueueItem>> split = reserved.split(items, now);
        return new Dispatch(reserved,
                QueueRepository.LeasedItem.of(split.get(0), reserved.owner(), now.plus(reserved.lease())), split.get(1));
    }

    /** Runs on this pod the leased items that were written ({@code inserted}), frees the rest. */
    public void handOver(Dispatch dispatch, LocalSteps local, List<QueueItem> inserted) {
        if (dispatch.reserved().slots() > 0) {
            local.handOver(dispatch.reserved(), inserted);
        }
    }

    /**
     * The write of a dispatch failed, or its outcome is unknown (the connection broke during its commit): its slots are
     * freed, and its leases, which may have been written with tokens no slot holds, go back to the queue as soon as the
     * database answers ({@link LeaseHandBack}) instead of waiting out their lease.
     */
    public void handOverUnwritten(Dispatch dispatch, LocalSteps local) {
        handOver(dispatch, local, List.of());
        if (!dispatch.leased().isEmpty()) {
            handBack.keep(dispatch.leased().stream().map(QueueRepository.LeasedItem::token).toList(),
                    dispatch.leased().get(0).expires());
        }
    }

    /**
     * Writes the rows as {@link #write} does, except the steps this pod can run now on slots {@code local} has free:
     * those are leased to it in the same transaction (eager dispatch: a run's first step, a chain's next step, runs
     * here without a claim), and handed to {@code local} once the transaction has ended, to run if it committed, their
     * slots freed if it rolled back. The slots are reserved here, after the tick, for exactly the steps it dispatched.
     * Returns what it leased.
     */
    public List<QueueItem> dispatch(List<NewQueueItem> items, LocalSteps local, Instant now) {
        Dispatch dispatch = split(items, local, now);
        if (dispatch.reserved().slots() == 0) {
            write(items, now);
            return List.of();
        }
        List<QueueItem> leased;
        try {
            leased = queue.enqueueLeased(dispatch.leased(), now);
            TransactionEnd.onEnd(transactions, committed -> {
                if (committed) {
                    handOver(dispatch, local, leased);
                } else {
                    handOverUnwritten(dispatch, local); // a commit cut short may have been applied
                }
            });
        } catch (RuntimeException failed) {
            handOver(dispatch, local, List.of());
            throw failed;
        }
        write(dispatch.queued(), now);
        return leased;
    }

    /** Wakes, after the commit, the loops of this JVM that can take these rows. */
    public void wakeFor(Collection<NewQueueItem> items, Instant now) {
        channels(items, now).forEach(signal::afterCommit);
    }

    /** Wakes the loops of this JVM that can take these rows, committed already (by a statement of their own). */
    public void wakeNow(Collection<NewQueueItem> items, Instant now) {
        channels(items, now).forEach(signal::nudge);
    }

    private static EnumSet<QueueSignal.Channel> channels(Collection<NewQueueItem> items, Instant now) {
        EnumSet<QueueSignal.Channel> channels = EnumSet.noneOf(QueueSignal.Channel.class);
        for (NewQueueItem item : items) {
            if (item.kind() == QueueKind.TASK) {
                channels.add(Handlers.isExternal(item.handler())
                        ? QueueSignal.Channel.EXTERNAL_CLAIMS : QueueSignal.Channel.STEP_WORKERS);
            } else if (!item.availableAt().isAfter(now)) {
                channels.add(QueueSignal.Channel.COORDINATORS);
            }
        }
        return channels;
    }
}
