package dev.ductor.run;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.StartupOrder;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.Priority;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
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

    private final Map<UUID, Set<Subscriber>> subscribers = new ConcurrentHashMap<>();

    @Inject
    DuctorConfig config;

    @Inject
    Config mpConfig;

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

    /** Subscribes to the commits of one run; close the returned handle to stop. */
    public AutoCloseable subscribe(UUID runId, Subscriber subscriber) {
        subscribers.computeIfAbsent(runId, id -> new CopyOnWriteArraySet<>()).add(subscriber);
        return () -> subscribers.computeIfPresent(runId, (id, set) -> {
            set.remove(subscriber);
            return set.isEmpty() ? null : set;
        });
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
