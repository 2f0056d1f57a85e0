package dev.ductor.database;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/** Work that must wait until the current transaction has ended, and be told whether it committed. */
public final class TransactionEnd {

    /** What to do once the transaction has ended; {@code committed} is false for a rollback. */
    @FunctionalInterface
    public interface Listener {
        void ended(boolean committed);
    }

    private TransactionEnd() {
    }

    /** Calls {@code listener} after the current transaction completes, on the thread that completed it. */
    public static void onEnd(TransactionSynchronizationRegistry transactions, Listener listener) {
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                listener.ended(status == Status.STATUS_COMMITTED);
            }
        });
    }
}
