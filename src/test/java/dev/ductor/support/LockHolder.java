package dev.ductor.support;

import io.agroal.api.AgroalDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.concurrent.TimeUnit;

/** Waits until some session is blocked on a row lock, to order two racing transactions deterministically. */
public final class LockHolder {

    private LockHolder() {
    }

    public static void awaitSomeoneBlocked(AgroalDataSource dataSource) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection connection = dataSource.getConnection()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = connection.createStatement().executeQuery(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(10);
            }
        }
        throw new AssertionError("no transaction ever blocked on the row lock");
    }
}
