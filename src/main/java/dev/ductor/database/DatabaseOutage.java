package dev.ductor.database;

import dev.ductor.error.BadRequestException;
import dev.ductor.error.DatabaseUnavailableException;
import dev.ductor.error.DuctorException;
import org.jboss.logging.Logger;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
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
            "jakarta.transaction.SystemException", "javax.transaction.xa.XAException",
            StatementCommitUncertain.class.getName());

    public enum Applied { NO, MAYBE }

    private DatabaseOutage() {
    }

    /**
     * The opposite case: the database was reached and refused a value of the request (SQLSTATE class 22, data
     * exception: a NUL character in text, say), so the statement failed on the input, not on the database.
     */
    public static boolean isDataException(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("22")) {
                return true;
            }
        }
        return false;
    }

    /**
     * What a caller is answered when the database is why {@code failure} happened, or null when it is not: a 400 for a
     * value it refused (the transaction rolled back, nothing was applied), a 503 while it cannot be reached.
     */
    public static DuctorException answer(Throwable failure) {
        if (isDataException(failure)) {
            return new BadRequestException(null,
                    "the request holds a value that cannot be stored (for example a NUL character); nothing was applied");
        }
        Applied applied = of(failure);
        return applied == null ? null : new DatabaseUnavailableException(applied == Applied.MAYBE, failure);
    }

    /** True when {@code failure} is the database being unreachable, not anything about the work that was tried. */
    public static boolean isOutage(Throwable failure) {
        return of(failure) != null;
    }

    /**
     * One line for a log: whether the work may have been applied, and the database's own words (the SQLException that
     * says it was unreachable); null when {@code failure} is not the database being unreachable. Its stack trace says
     * nothing more while the database is away: a switch of primaries would print thousands of lines of it.
     */
    public static String summary(Throwable failure) {
        Applied applied = of(failure);
        if (applied == null) {
            return null;
        }
        SQLException unreachable = null;
        Deque<Throwable> pending = new ArrayDeque<>(List.of(failure));
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (!pending.isEmpty() && unreachable == null) {
            Throwable cause = pending.pop();
            if (!seen.add(cause)) {
                continue;
            }
            if (cause instanceof SQLException sql && isUnreachable(sql) && !(cause instanceof StatementCommitUncertain)) {
                unreachable = sql;
            }
            if (cause.getCause() != null) {
                pending.push(cause.getCause());
            }
            pending.addAll(List.of(cause.getSuppressed()));
        }
        String why = unreachable == null ? rootOf(failure).toString()
                : unreachable.getClass().getSimpleName() + (unreachable.getSQLState() == null ? "" : " " + unreachable.getSQLState())
                + ": " + unreachable.getMessage();
        return (applied == Applied.MAYBE ? "its commit was cut short and may have been applied" : "nothing was applied")
                + " (" + why + ")";
    }

    /**
     * Runs a pass of maintenance that the next pass makes good for: while the database is unreachable it writes one
     * line, {@code "<failed>, the database is unreachable: <summary>"}, not the scheduler's stack trace; any other
     * failure is thrown.
     */
    public static void skipIfUnreachable(Logger log, String failed, Runnable pass) {
        try {
            pass.run();
        } catch (RuntimeException e) {
            String outage = summary(e);
            if (outage == null) {
                throw e;
            }
            log.warnf("%s, the database is unreachable: %s", failed, outage);
        }
    }

    private static Throwable rootOf(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    /** Null when {@code failure} is not the database being unreachable. */
    public static Applied of(Throwable failure) {
        boolean unreachable = false;
        boolean committing = false;
        // Causes and suppressed exceptions, to any depth: Narayana reports a commit that the connection's loss cut
        // short as a RollbackException whose SQLException hangs below a suppressed XAException, not on its cause
        // chain (seen in the chaos trial: a 500 for a start cut by a database crash while it committed).
        Deque<Throwable> pending = new ArrayDeque<>(List.of(failure));
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (!pending.isEmpty()) {
            Throwable cause = pending.pop();
            if (!seen.add(cause)) {
                continue;
            }
            unreachable |= isUnreachable(cause);
            committing |= COMMIT_PHASE.contains(cause.getClass().getName());
            if (cause.getCause() != null) {
                pending.push(cause.getCause());
            }
            pending.addAll(List.of(cause.getSuppressed()));
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
