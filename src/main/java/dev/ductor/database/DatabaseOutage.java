package dev.ductor.database;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

/**
 * Tells a failure to reach PostgreSQL (refused or broken connection, a server shutting down or starting up, no
 * connection to be had from the pool) from any other error, and whether the request may nevertheless have been
 * applied: only when the connection broke while the transaction was committing can the database have committed
 * without our hearing of it. A failure before that rolled back, or never reached the database at all. The API
 * answers 503 on it; the coordinator and the watchdog never hold it against a run (it is not the run's fault).
 */
public final class DatabaseOutage {

    /** SQLSTATE class 08 (connection exception) and 57P01-57P03 (admin or crash shutdown, cannot connect now). */
    private static final Set<String> SHUTDOWN_STATES = Set.of("57P01", "57P02", "57P03");
    private static final Set<String> COMMIT_PHASE = Set.of("jakarta.transaction.RollbackException",
            "jakarta.transaction.HeuristicMixedException", "jakarta.transaction.HeuristicRollbackException",
            "jakarta.transaction.SystemException", "javax.transaction.xa.XAException");

    public enum Applied { NO, MAYBE }

    private DatabaseOutage() {
    }

    /** True when {@code failure} is the database being unreachable, not anything about the work that was tried. */
    public static boolean isOutage(Throwable failure) {
        return of(failure) != null;
    }

    /** Null when {@code failure} is not the database being unreachable. */
    public static Applied of(Throwable failure) {
        boolean unreachable = false;
        boolean committing = false;
        for (Throwable cause = failure; cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            unreachable |= isUnreachable(cause);
            committing |= COMMIT_PHASE.contains(cause.getClass().getName());
            for (Throwable suppressed : cause.getSuppressed()) {
                unreachable |= isUnreachable(suppressed);
            }
        }
        return !unreachable ? null : committing ? Applied.MAYBE : Applied.NO;
    }

    private static boolean isUnreachable(Throwable cause) {
        if (cause instanceof SQLTransientConnectionException || cause instanceof SQLNonTransientConnectionException
                || cause instanceof ConnectException || cause instanceof org.hibernate.exception.JDBCConnectionException) {
            return true;
        }
        if (cause instanceof SQLException sql) {
            String state = sql.getSQLState();
            if (state != null && (state.startsWith("08") || SHUTDOWN_STATES.contains(state))) {
                return true;
            }
            // Agroal: no connection could be had in time (the server does not answer, or the pool is exhausted by it).
            return sql.getMessage() != null && sql.getMessage().startsWith("Acquisition timeout");
        }
        return false;
    }
}
