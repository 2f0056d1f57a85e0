package dev.ductor.database;

import io.quarkus.runtime.configuration.ConfigurationException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A start-up step that meets an unreachable database is done again, with backoff, until it works or the wait is up;
 * any other failure stops the start at once. The unreachable database is a real one: the PostgreSQL driver refused
 * by a port nothing listens on (SQLSTATE 08001).
 */
@Tag("db")
class StartupRetryTest {

    @Test
    void aStepThatMeetsAnUnreachableDatabaseIsDoneAgainUntilItWorks() throws Exception {
        SQLException refused = refusedConnection();
        AtomicInteger tries = new AtomicInteger();
        long started = System.nanoTime();
        String result = StartupRetry.whileUnreachable("migrating the schema", Duration.ofSeconds(30), () -> {
            if (tries.incrementAndGet() < 3) {
                throw new IllegalStateException("Unable to read database connection metadata", refused);
            }
            return "migrated";
        });
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertEquals("migrated", result);
        assertEquals(3, tries.get());
        assertTrue(millis >= 1500, "backed off 0.5 s, then 1 s: " + millis + " ms");
    }

    @Test
    void itGivesUpAfterTheWaitWithOneMessageAndNoCause() throws Exception {
        SQLException refused = refusedConnection();
        AtomicInteger tries = new AtomicInteger();
        ConfigurationException gaveUp = assertThrows(ConfigurationException.class,
                () -> StartupRetry.whileUnreachable("validating the schema", Duration.ofMillis(1200), () -> {
                    tries.incrementAndGet();
                    throw refused;
                }));
        assertTrue(tries.get() >= 2, "tried again before giving up: " + tries.get());
        assertTrue(gaveUp.getMessage().startsWith("Gave up waiting for the database after 1 s while validating the schema"),
                gaveUp.getMessage());
        assertTrue(gaveUp.getMessage().contains("QUARKUS_DATASOURCE_JDBC_URL"), gaveUp.getMessage());
        // Quarkus prints a ConfigurationException as its message alone only when it is the root cause.
        assertNull(gaveUp.getCause());
    }

    @Test
    void anyOtherFailureStopsAtOnce() {
        AtomicInteger tries = new AtomicInteger();
        IllegalArgumentException notAnOutage = new IllegalArgumentException("Schema validation: missing table [eec_workflow_run]");
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                () -> StartupRetry.whileUnreachable("validating the schema", Duration.ofSeconds(30), () -> {
                    tries.incrementAndGet();
                    throw notAnOutage;
                }));
        assertSame(notAnOutage, thrown);
        assertEquals(1, tries.get());
    }

    private static SQLException refusedConnection() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setServerNames(new String[] {"localhost"});
        source.setPortNumbers(new int[] {port});
        source.setDatabaseName("postgres");
        source.setUser("postgres");
        source.setConnectTimeout(2);
        try (Connection never = source.getConnection()) {
            throw new AssertionError("something answers on port " + port);
        } catch (SQLException refused) {
            assertTrue(DatabaseOutage.isOutage(refused), refused.getSQLState() + " " + refused);
            return refused;
        }
    }
}
