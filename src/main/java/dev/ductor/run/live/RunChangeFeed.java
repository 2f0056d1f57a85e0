package dev.ductor.run.live;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.PodIdentity;
import dev.ductor.config.StartupOrder;
import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.Priority;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * Which runs changed, as PostgreSQL tells every pod: migration V9's statement trigger sends
 * {@code NOTIFY ductor_run_changed '<run_id>:<version>,...'} in the committing transaction, so a notification arrives
 * only for a commit, from whichever pod made it. One dedicated connection per pod LISTENs (a plain JDBC connection
 * of the datasource's URL, outside the pool: it is held for the pod's life) on its own thread and fans the run ids out
 * to this JVM's subscribers. When the database goes away it reconnects with backoff, then tells every subscriber to
 * re-read, since notifications sent meanwhile are lost.
 *
 * <p>The trigger notifies only for runs someone watches (migration V10): a notifying commit holds PostgreSQL's
 * notification queue lock through its WAL flush, so notifying every commit would serialize the commits of the whole
 * fleet. The first subscriber of a run in this pod records the watch in {@code eec_run_watch} (committed before the
 * stream's first read, so no commit falls between them), the last one removes it, and every minute the pod extends
 * its watches, which otherwise expire (a pod that died), and clears expired ones.
 */
@ApplicationScoped
public class RunChangeFeed {

    public static final String CHANNEL = "ductor_run_changed";
    private static final Logger LOG = Logger.getLogger(RunChangeFeed.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final int POLL_MILLIS = 500;

    /** Told of a commit of its run (the version committed), or with -1 that something may have been missed. */
    public interface Subscriber {
        void changed(long version);
    }

    private static final String WATCH_TTL = "3 minutes";

    private final Map<UUID, Set<Subscriber>> subscribers = new ConcurrentHashMap<>();

    @Inject AgroalDataSource dataSource;
    @Inject PodIdentity pod;
    @Inject DuctorConfig config;
    @Inject Config mpConfig;

    private volatile boolean running;
    private volatile boolean listening;
    private volatile Thread thread;

    // Before the loops, like all start-up work: its threads are daemons, so even a start that fails later cannot
    // keep the JVM alive.
    void start(@Observes @Priority(StartupOrder.BEFORE_LOOPS) StartupEvent event) {
        if (!config.live().enabled()) {
            LOG.info("Live run updates are off (ductor.live.enabled=false): no LISTEN connection");
            return;
        }
        running = true;
        Thread listener = new Thread(this::listen, "ductor-run-change-listener");
        listener.setDaemon(true);
        thread = listener;
        listener.start();
    }

    void stop(@Observes ShutdownEvent event) {
        running = false;
        Thread listener = thread;
        if (listener != null) {
            listener.interrupt();
            try {
                listener.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** True while the feed is on (it may be reconnecting: subscribers are then re-read once it is back). */
    public boolean enabled() {
        return running;
    }

    /** True while the LISTEN connection is up. */
    public boolean listening() {
        return listening;
    }

    /**
     * Subscribes to the commits of one run; close the returned handle to stop. When this returns, the run's commits
     * are notified (its watch is recorded), so a read made after it misses no commit.
     */
    public AutoCloseable subscribe(UUID runId, Subscriber subscriber) {
        boolean[] first = {false};
        subscribers.compute(runId, (id, set) -> {
            Set<Subscriber> subscribed = set == null ? new CopyOnWriteArraySet<>() : set;
            first[0] = subscribed.isEmpty();
            subscribed.add(subscriber);
            return subscribed;
        });
        if (first[0]) {
            watch(List.of(runId));
        }
        return () -> {
            boolean[] last = {false};
            subscribers.computeIfPresent(runId, (id, set) -> {
                set.remove(subscriber);
                last[0] = set.isEmpty();
                return last[0] ? null : set;
            });
            if (last[0]) {
                unwatch(runId);
            }
        };
    }

    /**
     * Records (or extends) this pod's watch of the runs, then waits out every transaction that wrote one of them
     * without seeing the watch: the trigger decides whether to notify when a statement writes, not when its transaction
     * commits, so a writer that updated a run just before the watch was committed would commit unnotified after the
     * stream's first read. Such a writer still holds the row's lock, and a {@code FOR SHARE} read waits for it to
     * commit, so the stream's first read (after this returns) sees its version. A failure is logged: the next refresh
     * or reconnect retries.
     */
    private void watch(List<UUID> runIds) {
        if (runIds.isEmpty()) {
            return;
        }
        try (Connection connection = dataSource.getConnection();
             PreparedStatement upsert = connection.prepareStatement("""
                     INSERT INTO eec_run_watch (run_id, pod, expires_at)
                     SELECT id, ?, now() + CAST(? AS interval) FROM unnest(?) AS id
                     ON CONFLICT (run_id, pod) DO UPDATE SET expires_at = EXCLUDED.expires_at""");
             PreparedStatement barrier = connection.prepareStatement(
                     "SELECT run_id FROM eec_workflow_run WHERE run_id = ANY(?) FOR SHARE")) {
            var ids = connection.createArrayOf("uuid", runIds.toArray());
            upsert.setString(1, pod.name());
            upsert.setString(2, WATCH_TTL);
            upsert.setArray(3, ids);
            upsert.executeUpdate(); // committed: autocommit, outside any transaction
            barrier.setArray(1, ids);
            barrier.executeQuery().close();
        } catch (SQLException e) {
            LOG.warnf("Live run updates: could not record the watch of %d run(s) (%s); retrying within a minute",
                    runIds.size(), e.getMessage());
        }
    }

    private void unwatch(UUID runId) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement delete = connection.prepareStatement(
                     "DELETE FROM eec_run_watch WHERE run_id = ? AND pod = ?")) {
            delete.setObject(1, runId);
            delete.setString(2, pod.name());
            delete.executeUpdate();
        } catch (SQLException e) {
            LOG.debugf("Live run updates: could not remove the watch of run %s (%s); it expires", runId, e.getMessage());
        }
    }

    /** Extends this pod's watches and clears everyone's expired ones. */
    @Scheduled(every = "60s", delayed = "60s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refreshWatches() {
        if (!running) {
            return;
        }
        watch(List.copyOf(subscribers.keySet()));
        try (Connection connection = dataSource.getConnection();
             Statement delete = connection.createStatement()) {
            delete.executeUpdate("DELETE FROM eec_run_watch WHERE expires_at < now()");
        } catch (SQLException e) {
            LOG.debugf("Live run updates: could not clear expired watches (%s)", e.getMessage());
        }
    }

    /** The number of runs someone in this JVM is watching. */
    public int watchedRuns() {
        return subscribers.size();
    }

    private void listen() {
        Duration backoff = FIRST_BACKOFF;
        boolean wasConnected = false;
        while (running) {
            try (Connection connection = connect()) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + CHANNEL);
                }
                listening = true;
                backoff = FIRST_BACKOFF;
                if (wasConnected) {
                    LOG.info("Live run updates: listening again; open streams re-read their runs");
                    watch(List.copyOf(subscribers.keySet())); // a crash-restarted database has emptied the watch table
                    subscribers.values().forEach(set -> set.forEach(s -> s.changed(-1)));
                }
                wasConnected = true;
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
                    if (notifications != null) {
                        for (PGNotification notification : notifications) {
                            dispatch(notification.getParameter());
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                if (!running) {
                    return;
                }
                LOG.warnf("Live run updates: the LISTEN connection failed (%s); retrying in %d ms", e.getMessage(), backoff.toMillis());
                try {
                    Thread.sleep(backoff.toMillis());
                } catch (InterruptedException interrupted) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(config.live().reconnectCap()) > 0
                        ? config.live().reconnectCap() : backoff.multipliedBy(2);
            }
        }
        listening = false;
    }

    private Connection connect() throws SQLException {
        String url = mpConfig.getValue("quarkus.datasource.jdbc.url", String.class);
        String user = mpConfig.getOptionalValue("quarkus.datasource.username", String.class).orElse(null);
        String password = mpConfig.getOptionalValue("quarkus.datasource.password", String.class).orElse(null);
        return DriverManager.getConnection(url, user, password);
    }

    /** {@code <uuid>:<version>,<uuid>:<version>...}; anything else is ignored (the channel is ours, but be safe). */
    void dispatch(String payload) {
        for (String pair : payload.split(",")) {
            int colon = pair.indexOf(':');
            if (colon < 0) {
                continue;
            }
            UUID runId;
            long version;
            try {
                runId = UUID.fromString(pair.substring(0, colon));
                version = Long.parseLong(pair.substring(colon + 1));
            } catch (IllegalArgumentException e) {
                continue;
            }
            Set<Subscriber> watching = subscribers.get(runId);
            if (watching != null) {
                watching.forEach(s -> s.changed(version));
            }
        }
    }
}
