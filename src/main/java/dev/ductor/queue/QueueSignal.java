package dev.ductor.queue;

import dev.ductor.database.TransactionEnd;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * Wakes this JVM's polling loops as soon as a transaction that queued work commits, so an idle loop does
 * not add its poll interval to every step. Coordinators and step workers have separate channels: a wakeup
 * for a run must not send every worker thread to claim tasks that are not there, nor a task only an external
 * worker can run. Other pods still find the work by polling.
 */
@ApplicationScoped
public class QueueSignal {

    public enum Channel {
        /** Wakeups and timers were queued: coordinator loops. */
        COORDINATORS,
        /** Tasks of in-process handlers were queued: this JVM's step worker loops. */
        STEP_WORKERS,
        /** Tasks of {@code ext:} handlers were queued: claims long-polling over HTTP; step workers cannot run them. */
        EXTERNAL_CLAIMS
    }

    private final TransactionSynchronizationRegistry transactions;
    private final Map<Channel, Monitor> monitors = new EnumMap<>(Channel.class);

    @Inject
    public QueueSignal(TransactionSynchronizationRegistry transactions) {
        this.transactions = transactions;
        for (Channel channel : Channel.values()) {
            monitors.put(channel, new Monitor());
        }
    }

    /** Nudges the channel's loops when the current transaction commits; never before, so nobody polls for rows not yet visible. */
    public void afterCommit(Channel channel) {
        TransactionEnd.onEnd(transactions, committed -> {
            if (committed) {
                nudge(channel);
            }
        });
    }

    public void nudge(Channel channel) {
        monitors.get(channel).nudge();
    }

    /** Waits up to {@code timeout}, returning early when the channel is nudged; whether it was nudged. */
    public boolean await(Channel channel, Duration timeout) throws InterruptedException {
        Monitor monitor = monitors.get(channel);
        return monitor.await(monitor.generation(), timeout);
    }

    /**
     * How many nudges the channel has had: read it before a poll, then {@link #awaitSince} that value after the poll,
     * so that work queued while the poll ran is not waited out.
     */
    public long generation(Channel channel) {
        return monitors.get(channel).generation();
    }

    /** As {@link #await}, but returns at once when the channel was nudged since it stood at {@code seen}. */
    public boolean awaitSince(Channel channel, long seen, Duration timeout) throws InterruptedException {
        return monitors.get(channel).await(seen, timeout);
    }

    /**
     * How long an idle loop waits before it polls again: {@code idle} after one empty round, doubling with each
     * further empty round up to eight times {@code idle}. Work queued in this JVM nudges the loop at once whatever
     * the wait; the wait only bounds how late a loop finds work queued by another pod or a timer falling due, and an
     * idle fleet of pods polls the queue table an eighth as often.
     */
    public static Duration idleWait(Duration idle, int emptyRounds) {
        return idle.multipliedBy(1L << Math.min(3, Math.max(0, emptyRounds - 1)));
    }

    private static final class Monitor {
        private long generation;

        synchronized void nudge() {
            generation++;
            notifyAll();
        }

        synchronized long generation() {
            return generation;
        }

        synchronized boolean await(long seen, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (generation == seen) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }
}
