package dev.ductor.database;

import jakarta.transaction.RollbackException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import javax.transaction.xa.XAException;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Which failures are the database being unreachable, and which of those may have been applied anyway. */
@Tag("unit")
class DatabaseOutageTest {

    @Test
    void noConnectionOrABrokenStatementWasNotApplied() {
        SQLException refused = new SQLException("Connection to localhost:5432 refused", "08001");
        assertEquals(DatabaseOutage.Applied.NO, DatabaseOutage.of(new RuntimeException(
                new org.hibernate.exception.JDBCConnectionException("Unable to acquire JDBC Connection", refused))));
        assertEquals(DatabaseOutage.Applied.NO, DatabaseOutage.of(new SQLException("terminating connection due to administrator command", "57P01")));
        assertEquals(DatabaseOutage.Applied.NO, DatabaseOutage.of(new SQLException("Acquisition timeout while waiting for new connection")));
    }

    @Test
    void aConnectionLostWhileCommittingMayHaveBeenApplied() {
        RollbackException commit = new RollbackException("commit failed");
        commit.initCause(new SQLException("An I/O error occurred while sending to the backend", "08006"));
        assertEquals(DatabaseOutage.Applied.MAYBE, DatabaseOutage.of(new IllegalStateException(commit)));
    }

    /** As Narayana reports it: the resource's failure is a suppressed XAException, the SQLException its cause. */
    @Test
    void aCommitCutByTheConnectionAsNarayanaReportsItMayHaveBeenApplied() {
        RollbackException commit = new RollbackException("ARJUNA016053: Could not commit transaction.");
        XAException resource = new XAException("commit failed");
        resource.initCause(new SQLException("An I/O error occurred while sending to the backend", "08006"));
        commit.addSuppressed(resource);
        assertEquals(DatabaseOutage.Applied.MAYBE, DatabaseOutage.of(new RuntimeException("undeclared", commit)));
    }

    /** A group of starts is one self-committing statement: a connection lost while it ran may have committed it. */
    @Test
    void aSelfCommittingStatementCutByTheConnectionMayHaveBeenApplied() {
        SQLException cut = new SQLException("An I/O error occurred while sending to the backend", "08006");
        assertEquals(DatabaseOutage.Applied.MAYBE, DatabaseOutage.of(
                new jakarta.persistence.PersistenceException("a group of starts could not be written", new StatementCommitUncertain(cut))));
    }

    /** One log line per failure while the database is away: what happened to the work, and the driver's own words. */
    @Test
    void theSummaryOfACommitCutShortSaysItMayHaveBeenAppliedAndWhy() {
        RollbackException commit = new RollbackException("ARJUNA016053: Could not commit transaction.");
        XAException resource = new XAException("commit failed");
        resource.initCause(new SQLException("An I/O error occurred while sending to the backend", "08006"));
        commit.addSuppressed(resource);

        assertEquals("its commit was cut short and may have been applied (SQLException 08006: An I/O error occurred"
                + " while sending to the backend)", DatabaseOutage.summary(new RuntimeException("undeclared", commit)));
    }

    @Test
    void theSummaryOfAFailureBeforeTheCommitSaysNothingWasApplied() {
        SQLException refused = new SQLException("Could not find a server with specified targetServerType: primary", "08001");
        assertEquals("nothing was applied (SQLException 08001: Could not find a server with specified targetServerType:"
                + " primary)", DatabaseOutage.summary(new RuntimeException(
                new org.hibernate.exception.JDBCConnectionException("Unable to acquire JDBC Connection", refused))));
        assertNull(DatabaseOutage.summary(new IllegalStateException("a bug")));
    }

    @Test
    void otherFailuresAreNotOutages() {
        assertNull(DatabaseOutage.of(new IllegalStateException("a bug")));
        assertNull(DatabaseOutage.of(new SQLException("invalid byte sequence", "22021")));
        assertNull(DatabaseOutage.of(new SQLException("duplicate key", "23505")));
    }
}
