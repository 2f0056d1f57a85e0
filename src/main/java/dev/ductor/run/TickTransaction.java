package dev.ductor.run;

import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.run.core.Input;
import dev.ductor.run.core.Tick;
import dev.ductor.run.core.TickResult;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * One attempt at one tick, in a transaction of its own with a fresh persistence context: load, compute,
 * commit, and acknowledge the wakeups that asked for it. REQUIRES_NEW so that a retry can never run inside
 * the attempt that lost (it would see the stale state that lost).
 */
@ApplicationScoped
public class TickTransaction {

    private final RunLoader loader;
    private final RunCommitter committer;
    private final QueueRepository queue;
    private final Clock clock;
    private final RunInbox inbox;

    @Inject
    public TickTransaction(RunLoader loader, RunCommitter committer, QueueRepository queue, Clock clock, RunInbox inbox) {
        this.inbox = inbox;
        this.loader = loader;
        this.committer = committer;
        this.queue = queue;
        this.clock = clock;
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public TickResult tickOnce(UUID runId, List<Input> carried, List<QueueItem> acks) {
        Instant now = clock.instant();
        Optional<LoadedRun> loaded = loader.load(runId);
        TickResult result = null;
        if (loaded.isPresent() && loaded.get().snapshot().status().isTerminal()) {
            inbox.drain(runId, now);
        } else if (loaded.isPresent()) {
            List<Input> inputs = new ArrayList<>(loaded.get().inbox());
            inputs.addAll(carried);
            result = Tick.tick(loaded.get().snapshot(), inputs, now);
            if (!result.isNoop()) {
                committer.commit(loaded.get(), result, now);
            } else if (!acks.isEmpty() || !result.discardedInputs().isEmpty()) {
                committer.confirmUnchanged(loaded.get());
            }
            inbox.markConsumed(result.discardedInputs(), now);
        }
        for (QueueItem item : acks) {
            queue.ack(item.id(), item.leaseToken());
        }
        return result;
    }
}
