package dev.ductor.support;

import io.agroal.api.AgroalDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.concurrent.TimeUnit;

/** Waits until some session is blocked on a row lock, to order two racing transactions deterministically. */
public final class LockHolder {

    private LockHolder() {
    }

    /** Waits until some session holds a row lock on a run (an uncommitted UPDATE of eec_workflow_run). */
    public static void awaitRowLocked(AgroalDataSource dataSource) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection connection = dataSource.getConnection()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = connection.createStatement().executeQuery("""
                        SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                         WHERE c.relname = 'eec_workflow_run' AND l.mode = 'RowExclusiveLock' AND l.granted""")) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(5);
            }
        }
        throw new AssertionError("no transaction ever wrote the run");
    }

    public static void awaitSomeoneBlocked(AgroalDataSource dataSource) throws Exception {
        awaitBlocked(dataSource, 1);
    }

    /** Waits until {@code work} has finished or at least {@code sessions} sessions wait for a lock. */
    public static void awaitDoneOrBlocked(AgroalDataSource dataSource, java.util.concurrent.Future<?> work, int sessions)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection connection = dataSource.getConnection()) {
            while (System.nanoTime() < deadline && !work.isDone()) {
                try (ResultSet rs = connection.createStatement().executeQuery(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")) {
                    rs.next();
                    if (rs.getLong(1) >= sessions) {
                        return;
                    }
                }
                Thread.sleep(5);
            }
        }
        if (!work.isDone()) {
            throw new AssertionError("the work neither finished nor blocked on a lock");
        }
    }

    /** Waits until at least {@code sessions} sessions wait for a lock (pg_stat_activity's wait_event_type 'Lock'). */
    public static void awaitBlocked(AgroalDataSource dataSource, int sessions) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection connection = dataSource.getConnection()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = connection.createStatement().executeQuery(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")) {
                    rs.next();
                    if (rs.getLong(1) >= sessions) {
                        return;
                    }
                }
                Thread.sleep(5);
            }
        }
        throw new AssertionError("fewer than " + sessions + " session(s) ever blocked on a row lock");
    }

    /** The backend pid of this connection's session, for {@link #awaitBlockedBy}. */
    public static int backendPid(Connection connection) throws Exception {
        try (ResultSet rs = connection.createStatement().executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Waits until some session waits for a lock held by the session {@code blockerPid} (pg_blocking_pids). */
    public static void awaitBlockedBy(AgroalDataSource dataSource, int blockerPid) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection connection = dataSource.getConnection();
             var blocked = connection.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))")) {
            blocked.setInt(1, blockerPid);
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = blocked.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(5);
            }
        }
        throw new AssertionError("no session ever waited for a lock held by session " + blockerPid);
    }
}
