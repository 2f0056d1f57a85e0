package dev.ductor.queue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Leases this pod wrote to itself in a commit whose outcome it does not know (the connection broke while the commit was
 * under way, so it may have been applied) or that failed: their steps were never handed to a slot, and nobody else holds
 * their tokens. Left alone, each would wait out its lease and be reaped. Instead this pod, which knows the tokens, hands
 * the rows back to the queue, unleased, for any pod, as soon as the database answers again, while the leases still
 * live. A token that was never written (the commit did roll back) matches no row: handing it back costs nothing.
 */
@ApplicationScoped
public class LeaseHandBack {

    private static final Logger LOG = Logger.getLogger(LeaseHandBack.class);

    /** Tokens of one commit's leases, and when those leases end (after that the reaper takes the rows). */
    private record Held(List<UUID> tokens, Instant expires) {
    }

    private final ConcurrentLinkedQueue<Held> held = new ConcurrentLinkedQueue<>();

    @Inject TaskLeases leases;
    @Inject QueueSignal signal;
    @Inject Clock clock;

    /** Keeps the tokens of leases that may have been written and were not handed to a slot, until handed back. */
    public void keep(Collection<UUID> tokens, Instant expires) {
        if (!tokens.isEmpty()) {
            held.add(new Held(List.copyOf(tokens), expires));
        }
    }

    @Scheduled(every = "${ductor.worker.hand-back-interval:1s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void trigger() {
        if (!held.isEmpty()) {
            runOnce(clock.instant());
        }
    }

    /** Hands back every lease kept that still lives; keeps them when the database does not answer. Returns how many rows. */
    public int runOnce(Instant now) {
        List<Held> batch = new ArrayList<>();
        for (Held next; (next = held.poll()) != null; ) {
            if (next.expires().isAfter(now)) {
                batch.add(next);
            }
        }
        if (batch.isEmpty()) {
            return 0;
        }
        List<UUID> tokens = batch.stream().flatMap(h -> h.tokens().stream()).toList();
        try {
            int released = QuarkusTransaction.requiringNew().call(() -> leases.releaseAll(tokens, now));
            if (released > 0) {
                LOG.infof("handed back %d task(s) whose commit's outcome was not known here, for any pod", released);
                signal.nudge(QueueSignal.Channel.STEP_WORKERS);
            }
            return released;
        } catch (RuntimeException unreachable) {
            held.addAll(batch); // the database still does not answer: again at the next round, while the leases live
            return 0;
        }
    }
}
