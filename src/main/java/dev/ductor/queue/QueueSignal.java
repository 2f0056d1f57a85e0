package dev.ductor.queue;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.time.Duration;

/**
 * Wakes this JVM's polling loops as soon as a transaction that queued work commits, so an idle loop does
 * not add its poll interval to every step. Other pods still find the work by polling.
 */
@ApplicationScoped
public class QueueSignal {

    private final TransactionSynchronizationRegistry transactions;
    private final Object monitor = new Object();
    private long generation;

    @Inject
    public QueueSignal(TransactionSynchronizationRegistry transactions) {
        this.transactions = transactions;
    }

    /** Nudges the loops when the current transaction commits; never before, so nobody polls for rows not yet visible. */
    public void afterCommit() {
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    nudge();
                }
            }
        });
    }

    public void nudge() {
        synchronized (monitor) {
            generation++;
            monitor.notifyAll();
        }
    }

    /** Waits up to {@code timeout}, returning early when nudged. */
    public void await(Duration timeout) throws InterruptedException {
        synchronized (monitor) {
            long seen = generation;
            long deadline = System.nanoTime() + timeout.toNanos();
            while (generation == seen) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                monitor.wait(Math.max(1, left / 1_000_000));
            }
        }
    }
}
