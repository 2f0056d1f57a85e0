package dev.ductor.run.live;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.StartupOrder;
import dev.ductor.config.CallerPermits;
import dev.ductor.error.LiveUpdatesOffException;
import dev.ductor.error.NotFoundException;
import dev.ductor.run.core.RunStatus;
import dev.ductor.run.read.RunQueries;
import dev.ductor.run.read.RunView;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.Priority;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The open streams of runs' changes in this pod ({@code GET /runs/{id}/events} is one {@link Sink} each). Each is a
 * {@link RunChangeFeed} subscriber: told that its run committed a version it has not sent, it re-reads the run (as
 * {@code GET /runs/{id}} would, same tenant) on a small pool, never on the listener's thread, and sends it to its sink.
 * Reads of one stream never overlap and several notifications arriving meanwhile cost one read. A terminal run ends
 * the stream.
 */
@ApplicationScoped
public class RunEventStreams {

    private static final Logger LOG = Logger.getLogger(RunEventStreams.class);

    /** Where one stream's runs go: the API writes each as a server-sent event. */
    public interface Sink {
        /** Sends the run as read; completes (or fails) when it is written. */
        CompletionStage<?> send(RunView run);

        /** A keep-alive for an idle stream; fails once the client has gone. */
        CompletionStage<?> heartbeat();

        boolean isClosed();

        void close();
    }

    @Inject
    RunQueries runs;

    @Inject
    RunChangeFeed feed;

    @Inject
    DuctorConfig config;

    private final Set<Stream> open = ConcurrentHashMap.newKeySet();
    /** Streams each caller and each tenant hold open here: bounded, since each is a connection and a re-read of its run per commit. */
    private final CallerPermits permits = new CallerPermits(new CallerPermits.Kind("streams",
            "ductor.limits.streams-per-caller", "ductor.limits.streams-per-tenant", "live run streams"));
    private ExecutorService readers;
    private ScheduledExecutorService heartbeats;

    // Before the loops, like all start-up work: its threads are daemons, so even a start that fails later cannot
    // keep the JVM alive.
    void start(@Observes @Priority(StartupOrder.BEFORE_LOOPS) StartupEvent event) {
        readers = Executors.newFixedThreadPool(4, daemon("ductor-run-events"));
        heartbeats = Executors.newSingleThreadScheduledExecutor(daemon("ductor-run-events-heartbeat"));
        long every = config.live().heartbeat().toMillis();
        heartbeats.scheduleAtFixedRate(this::heartbeat, every, every, TimeUnit.MILLISECONDS);
    }

    void stop(@Observes ShutdownEvent event) {
        open.forEach(Stream::close);
        if (heartbeats != null) {
            heartbeats.shutdownNow();
            readers.shutdownNow();
        }
    }


    /** Open streams in this pod (tests and curious operators). */
    public int openStreams() {
        return open.size();
    }

    /**
     * Starts streaming: subscribe first, then read and send the current state, so no commit falls between the two.
     * {@code lastEventId} is the version the client already has (an EventSource's {@code Last-Event-ID}); that
     * version is not sent again. Refused before anything is sent when this pod has no change feed (503), or the run is
     * not the tenant's (404).
     */
    public void open(String tenant, String subject, UUID runId, Long lastEventId, Sink sink) {
        if (!feed.enabled()) {
            throw new LiveUpdatesOffException();
        }
        runs.get(tenant, runId);
        CallerPermits.Permit permit = permits.acquire(tenant, subject, config.limits().streamsPerCaller(),
                config.limits().streamsPerTenant());
        Stream stream = new Stream(tenant, runId, permit, sink, lastEventId == null ? -1 : lastEventId);
        open.add(stream);
        try {
            stream.subscription = feed.subscribe(runId, stream);
        } catch (RuntimeException failed) {
            stream.close();
            throw failed;
        }
        stream.schedule();
    }

    private void heartbeat() {
        for (Stream stream : open) {
            if (stream.sink.isClosed()) {
                stream.close();
            } else {
                stream.sink.heartbeat().whenComplete((ok, failed) -> {
                    if (failed != null) {
                        stream.close();
                    }
                });
            }
        }
    }

    private final class Stream implements RunChangeFeed.Subscriber {
        final String tenant;
        final UUID runId;
        final CallerPermits.Permit permit;
        final Sink sink;
        volatile long sent;
        volatile AutoCloseable subscription;
        volatile boolean dirty;
        volatile boolean done;
        final AtomicBoolean reading = new AtomicBoolean();

        Stream(String tenant, UUID runId, CallerPermits.Permit permit, Sink sink, long sent) {
            this.tenant = tenant;
            this.runId = runId;
            this.permit = permit;
            this.sink = sink;
            this.sent = sent;
        }

        @Override
        public void changed(long version) {
            if (version < 0 || version != sent) {
                schedule();
            }
        }

        void schedule() {
            dirty = true;
            if (!done && reading.compareAndSet(false, true)) {
                try {
                    readers.execute(this::drain);
                } catch (RuntimeException rejected) { // shutting down
                    reading.set(false);
                    close();
                }
            }
        }

        private void drain() {
            try {
                while (dirty && !done) {
                    dirty = false;
                    refresh();
                }
            } finally {
                reading.set(false);
            }
            if (dirty && !done) {
                schedule();
            }
        }

        private void refresh() {
            RunView run;
            try {
                run = runs.get(tenant, runId);
            } catch (NotFoundException gone) {
                close();
                return;
            } catch (RuntimeException e) {
                // A database outage or a corrupt row: keep the stream; the next commit (or reconnect) reads again.
                LOG.debugf("run %s: event stream could not read the run: %s", runId, e.getMessage());
                return;
            }
            boolean terminal = RunStatus.valueOf(run.status()).isTerminal();
            if (run.version() != sent) {
                sent = run.version();
                var written = sink.send(run);
                if (terminal) {
                    written.whenComplete((ok, failed) -> close());
                    done = true;
                    return;
                }
                written.whenComplete((ok, failed) -> {
                    if (failed != null) {
                        close();
                    }
                });
            } else if (terminal) {
                close();
            }
        }

        void close() {
            done = true;
            if (open.remove(this)) {
                permit.close();
            }
            try {
                if (subscription != null) {
                    subscription.close();
                }
            } catch (Exception ignored) {
                // removing from a map does not fail
            }
            sink.close();
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
