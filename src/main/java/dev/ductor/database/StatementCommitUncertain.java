package dev.ductor.database;

import java.sql.SQLException;

/**
 * A statement that commits by itself (autocommit) lost its connection after it was sent: the database may have
 * committed it without our hearing of it, as when a transaction's COMMIT is cut short. {@link DatabaseOutage} answers
 * it as possibly applied, so a client retries with its idempotency key rather than assume nothing happened.
 */
public final class StatementCommitUncertain extends SQLException {

    public StatementCommitUncertain(SQLException cause) {
        super("the connection failed while a self-committing statement ran; it may have been committed",
                cause.getSQLState(), cause);
    }
}
