package dev.ductor.run;

import dev.ductor.config.DuctorConfig;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.error.PodStoppingException;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Starts that arrive together commit together: a group commit for the API's run starts. One committer thread takes
 * every start queued at that moment and commits them in one transaction ({@link RunStarter#startAll}); those that
 * queue while it commits form the next group. A lone start commits at once, so nobody waits for a group to fill;
 * under load each commit, its round trips and its WAL flush are shared by the starts that queued during the one
 * before.
 *
 * <p>A start is answered through a future, so the HTTP request that asked for it waits on no thread: the endpoint
 * runs on the event loop and resumes there when the group is durable. Measured under chain3, handing every start to a
 * worker thread that then waited for the group's lock (the executor, its context propagation, a parked thread a start)
 * was about a twentieth of the pod's CPU.
 *
 * <p>A group that holds a start the database refuses to store is committed again one start at a time, so that start
 * fails alone. A group that fails otherwise (the database went away) fails with it, and each client retries with its
 * idempotency key as after any failed start.
 */
@ApplicationScoped
public class StartBatcher {

    private static final Logger LOG = Logger.getLogger(StartBatcher.class);

    /** The most starts one transaction takes: bounds a commit's size and the wait of the first start in it. */
    static final int MAX_GROUP = 64;

    @Inject RunStarter starter;
    @Inject DuctorConfig config;
    private final LinkedBlockingQueue<Pending> queued = new LinkedBlockingQueue<>();
    private volatile Thread committer;
    private volatile boolean stopping;

    private record Pending(RunStarter.Request request, CompletableFuture<RunStarter.Started> answer) {
    }

    /** Starts a run, in a group with whatever other starts are queued; completes as {@link RunStarter#start} answers. */
    public CompletableFuture<RunStarter.Started> submit(String tenant, String workflow, StartRequest request) {
        Pending mine = new Pending(new RunStarter.Request(tenant, workflow, request), new CompletableFuture<>());
        if (committer == null) {
            ensureCommitter();
        }
        queued.add(mine);
        if (stopping) {
            failQueued(); // the committer may have drained for the last time before this start queued
        }
        return mine.answer();
    }

    /** {@link #submit}, waited for: for callers on a thread of their own. */
    public RunStarter.Started start(String tenant, String workflow, StartRequest request) {
        try {
            return submit(tenant, workflow, request).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /** Commits what is queued, then stops the committer; a start that comes later is refused as unavailable. */
    void stop(@Observes ShutdownEvent event) {
        Thread running;
        synchronized (this) {
            stopping = true;
            running = committer;
        }
        if (running != null) {
            try {
                running.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        failQueued();
    }

    /** Started with the first start, so a pod that serves no starts has no committer. */
    private synchronized void ensureCommitter() {
        if (committer == null && !stopping) {
            committer = new Thread(this::commitLoop, "ductor-start-commit");
            committer.setDaemon(true);
            committer.start();
        }
    }

    private void commitLoop() {
        CommitGroups<Pending> groups = new CommitGroups<>(queued, MAX_GROUP, config.starts().linger().toNanos());
        List<Pending> group = new ArrayList<>(MAX_GROUP);
        while (!stopping || !queued.isEmpty()) {
            try {
                if (groups.next(group)) {
                    commit(group);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                group.forEach(p -> p.answer().completeExceptionally(stopped()));
                return;
            } catch (RuntimeException | Error unexpected) {
                // Never leave a caller waiting: whatever went wrong, the group's answers are given.
                LOG.errorf(unexpected, "a group of %d starts failed unexpectedly", group.size());
                group.forEach(p -> p.answer().completeExceptionally(unexpected));
            } finally {
                group.clear();
            }
        }
    }

    /**
     * Commits the group. If the database refused a value of one of its starts (a text it cannot store, say), each
     * start is committed alone, so that one fails by itself and not its neighbours: that failure rolled the whole
     * transaction back, so nothing is done twice. Any other failure (the database away, the connection lost while
     * committing, when the group may have been applied) fails the group, and each client retries with its key.
     */
    private void commit(List<Pending> group) {
        List<RunStarter.Result> results;
        try {
            results = QuarkusTransaction.requiringNew()
                    .call(() -> starter.startAll(group.stream().map(Pending::request).toList()));
        } catch (RuntimeException failed) {
            if (group.size() > 1 && DatabaseOutage.isDataException(failed)) {
                LOG.debugf("a group of %d starts held a value the database refused (%s); committing each alone",
                        group.size(), failed.getMessage());
                group.forEach(p -> commit(List.of(p)));
            } else {
                group.forEach(p -> p.answer().completeExceptionally(failed));
            }
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            RunStarter.Result result = results.get(i);
            CompletableFuture<RunStarter.Started> answer = group.get(i).answer();
            if (result.refused() != null) {
                answer.completeExceptionally(result.refused());
            } else {
                answer.complete(result.started());
            }
        }
    }

    private void failQueued() {
        for (Pending p; (p = queued.poll()) != null; ) {
            p.answer().completeExceptionally(stopped());
        }
    }

    private static PodStoppingException stopped() {
        return new PodStoppingException("the run start");
    }
}
