package dev.ductor.run.live;

import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A commit notifies the listeners only for runs some pod watches: while nobody streams a run its commits take no
 * notification queue lock; from the moment a subscription returns, every commit of the run is notified; after the
 * last subscriber leaves, none is.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class RunWatchNotifyTest {

    private static final String TENANT = "watch-notify";

    @Inject
    Fixtures fixtures;

    @Inject
    RunChangeFeed feed;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    org.eclipse.microprofile.config.Config config;

    /** Commits one UPDATE of the run's row (no version change: the trigger fires on any UPDATE statement). */
    private void touch(UUID runId) throws Exception {
        try (Connection c = dataSource.getConnection();
             PreparedStatement update = c.prepareStatement("UPDATE eec_workflow_run SET updated_at = updated_at WHERE run_id = ?")) {
            update.setObject(1, runId);
            assertEquals(1, update.executeUpdate());
        }
    }

    private static List<String> notified(Connection listener, UUID runId, int waitMillis) throws Exception {
        List<String> payloads = new ArrayList<>();
        long deadline = System.currentTimeMillis() + waitMillis;
        while (System.currentTimeMillis() < deadline) {
            PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(100);
            if (got != null) {
                for (PGNotification n : got) {
                    if (n.getParameter().contains(runId.toString())) {
                        payloads.add(n.getParameter());
                    }
                }
            }
        }
        return payloads;
    }

    @Test
    void onlyWatchedRunsAreNotified() throws Exception {
        String workflow = fixtures.chain(TENANT, 1, "noop");
        try (Connection listener = DriverManager.getConnection(config.getValue("quarkus.datasource.jdbc.url", String.class),
                config.getOptionalValue("quarkus.datasource.username", String.class).orElse(null),
                config.getOptionalValue("quarkus.datasource.password", String.class).orElse(null))) {
            try (Statement listen = listener.createStatement()) {
                listen.execute("LISTEN " + RunChangeFeed.CHANNEL);
            }
            UUID runId = fixtures.start(TENANT, workflow);
            touch(runId);
            assertEquals(List.of(), notified(listener, runId, 700), "nobody watches: neither the start nor the update notifies");

            AutoCloseable subscription = feed.subscribe(runId, version -> { });
            assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_watch WHERE run_id = ?1", runId), "watch recorded");
            touch(runId);
            List<String> payloads = notified(listener, runId, 3000);
            assertEquals(1, payloads.size(), "one notification for the watched run's commit: " + payloads);
            assertTrue(payloads.get(0).contains(runId + ":"), payloads.get(0));

            subscription.close();
            assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_watch WHERE run_id = ?1", runId), "watch removed");
            touch(runId);
            assertEquals(List.of(), notified(listener, runId, 700), "the last subscriber left: no more notifications");
        }
    }

    @Test
    void aSubscriptionWaitsForAWriterThatUpdatedTheRunBeforeTheWatchExisted() throws Exception {
        String workflow = fixtures.chain(TENANT, 1, "noop");
        UUID runId = fixtures.start(TENANT, workflow);
        try (Connection writer = dataSource.getConnection()) {
            writer.setAutoCommit(false);
            try (PreparedStatement update = writer.prepareStatement(
                    "UPDATE eec_workflow_run SET updated_at = updated_at WHERE run_id = ?")) {
                update.setObject(1, runId);
                update.executeUpdate(); // its trigger found no watch: this commit will notify nobody
            }
            int writerPid = dev.ductor.support.LockHolder.backendPid(writer);
            java.util.concurrent.CompletableFuture<AutoCloseable> subscribing =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> feed.subscribe(runId, version -> { }));
            // The subscription's session is seen waiting for the writer's row lock: it waits, not merely is slow.
            dev.ductor.support.LockHolder.awaitBlockedBy(dataSource, writerPid);
            assertTrue(!subscribing.isDone(), "the subscription waits for the writer that could not see its watch");
            writer.commit();
            try (AutoCloseable subscription = subscribing.get(10, java.util.concurrent.TimeUnit.SECONDS)) {
                assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_watch WHERE run_id = ?1", runId));
            }
        }
    }
}
