package dev.ductor.support;

import io.quarkus.narayana.jta.QuarkusTransaction;

import java.util.concurrent.Callable;

/** Work done in a transaction that is rolled back whatever happens: for EXPLAINs that need DDL or data of their own. */
public final class RolledBack {

    private RolledBack() {
    }

    /** Runs {@code work} in a new transaction, rolls it back, and returns what {@code work} returned. */
    public static <T> T call(Callable<T> work) {
        final class Undo extends RuntimeException {
            final transient Object result;

            Undo(Object result) {
                super(null, null, false, false);
                this.result = result;
            }
        }
        try {
            QuarkusTransaction.requiringNew().run(() -> {
                try {
                    throw new Undo(work.call());
                } catch (Undo undo) {
                    throw undo;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            throw new IllegalStateException("unreachable: the work always ends by rolling back");
        } catch (Undo undo) {
            @SuppressWarnings("unchecked") T result = (T) undo.result;
            return result;
        }
    }
}
