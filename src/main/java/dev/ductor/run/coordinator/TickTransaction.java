package dev.ductor.run.coordinator;

import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.run.commit.RunCommitter;
import dev.ductor.run.core.Input;
import dev.ductor.run.core.TickResult;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.util.List;
import java.util.UUID;

/**
 * One attempt at one coordinator tick ({@link RunCommitter#tick}), in a transaction of its own with a fresh persistence
 * context, acknowledging the wakeups that asked for it. REQUIRES_NEW so that a retry can never run inside the attempt
 * that lost (it would see the stale state that lost).
 */
@ApplicationScoped
public class TickTransaction {

    private final RunCommitter committer;
    private final QueueRepository queue;
    private final Clock clock;

    @Inject
    public TickTransaction(RunCommitter committer, QueueRepository queue, Clock clock) {
        this.committer = committer;
        this.queue = queue;
        this.clock = clock;
    }

    /** The result committed, or null when the run is gone or finished. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public TickResult tickOnce(UUID runId, List<Input> carried, List<QueueItem> acks) {
        TickResult result = committer.tick(runId, RunCommitter.Command.coordinator(carried, !acks.isEmpty()),
                clock.instant()).committed();
        for (QueueItem item : acks) {
            queue.ack(item.id(), item.leaseToken());
        }
        return result;
    }
}
