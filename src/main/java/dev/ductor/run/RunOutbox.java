package dev.ductor.run;

import dev.ductor.config.JsonCodec;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.QueueSignal;
import dev.ductor.run.core.Effect;
import dev.ductor.workflow.model.Handlers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * A tick's effects as queue rows, written in the tick's own transaction (the outbox), and the loops of this JVM
 * to wake once that transaction commits: step workers for in-process tasks, long-polling external claims for
 * {@code ext:} tasks, coordinators for wakeups and timers already due.
 */
@ApplicationScoped
public class RunOutbox {

    private final QueueRepository queue;
    private final QueueSignal signal;
    private final JsonCodec json;

    @Inject
    public RunOutbox(QueueRepository queue, QueueSignal signal, JsonCodec json) {
        this.queue = queue;
        this.signal = signal;
        this.json = json;
    }

    /** The queue rows for one run's effects. */
    public List<NewQueueItem> items(UUID runId, String tenant, String tier, List<Effect> effects) {
        List<NewQueueItem> items = new ArrayList<>(effects.size());
        for (Effect effect : effects) {
            if (effect instanceof Effect.DispatchTask task) {
                items.add(NewQueueItem.task(tenant, tier, runId, task.node(), task.attempt(), task.handler(), task.pool(),
                        json.write(task.input()), task.availableAt()));
            } else if (effect instanceof Effect.ScheduleTimer timer) {
                items.add(NewQueueItem.timer(tenant, tier, runId, timer.node(), timer.dueAt()));
            }
        }
        return items;
    }

    /** Inserts the rows (one batch) and wakes the loops that can take them when the transaction commits. */
    public void write(Collection<NewQueueItem> items, Instant now) {
        queue.enqueue(items, now);
        wakeFor(items, now);
    }

    /** Wakes, after the commit, the loops of this JVM that can take these rows. */
    public void wakeFor(Collection<NewQueueItem> items, Instant now) {
        if (items.stream().anyMatch(i -> i.kind() == QueueKind.TASK && !Handlers.isExternal(i.handler()))) {
            signal.afterCommit(QueueSignal.Channel.STEP_WORKERS);
        }
        if (items.stream().anyMatch(i -> i.kind() == QueueKind.TASK && Handlers.isExternal(i.handler()))) {
            signal.afterCommit(QueueSignal.Channel.EXTERNAL_CLAIMS);
        }
        if (items.stream().anyMatch(i -> i.kind() != QueueKind.TASK && !i.availableAt().isAfter(now))) {
            signal.afterCommit(QueueSignal.Channel.COORDINATORS);
        }
    }
}
