package dev.ductor.run.commit;

import dev.ductor.config.DuctorConfig;
import dev.ductor.error.OverloadedException;
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
 * every start queued at that moment and commits them together; those that queue while it commits form the next group.
 * A lone start commits at once, so nobody waits for a group to fill; under load each commit, its round trips and its
 * WAL flush are shared by the starts that queued during the one before.
 *
 * <p>The committer does as little as it can, since every start waits for it. A start is prepared on the thread that
 * submits it, on the revision this JVM last saw current ({@link RunStarter#prepareOnLastSeen}), and a group of prepared
 * starts is one self-committing statement: one round trip ({@link RunStarter#startPrepared}). Only the rest go through
 * a transaction ({@link RunStarter#startAll}): a workflow's first start in this JVM, a key already taken, a revision
 * replaced since. A transaction's round trips hold the committer, and every start waits for the committer.
 *
 * <p>A start is answered through a future, so the HTTP request that asked for it waits on no thread: the endpoint
 * runs on the event loop and resumes there when the group is durable. Handing every start to a worker thread that
 * then waited for the group's lock would cost each start the executor, its context propagation and a parked thread.
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

    /** A start waiting for its group; {@code prepared} is null when it must go the transactional way. */
    private record Pending(RunStarter.Request request, RunStarter.Prepared prepared,
                           CompletableFuture<RunStarter.Started> answer) {
    }

    /**
     * Starts a run, in a group with whatever other starts are queued; completes as {@link RunStarter#start} answers.
     * The start's pure work (its first tick, its row's JSON and seal, its history and its answer) is done here, on the
     * caller's thread, on the revision last seen current: the one committer is left the statement, so it is busy for
     * less of each group.
     */
    public CompletableFuture<RunStarter.Started> submit(String tenant, String workflow, StartRequest request) {
        if (stopping) {
            return CompletableFuture.failedFuture(stopped());
        }
        int bound = config.limits().startQueue();
        if (queued.size() >= bound) {
            // Bounded, so a burst larger than the database can take is refused at once instead of held in the heap.
            return CompletableFuture.failedFuture(new OverloadedException("starts", "ductor.limits.start-queue", bound));
        }
        RunStarter.Request start = new RunStarter.Request(tenant, workflow, request);
        Pending mine = new Pending(start, starter.prepareOnLastSeen(start), new CompletableFuture<>());
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
        BatchGatherer<Pending> groups = new BatchGatherer<>(queued, MAX_GROUP, config.starts().linger().toNanos());
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
     * Commits the group: the prepared starts in one self-committing statement ({@link RunStarter#startPrepared}), then
     * the rest in one transaction ({@link RunStarter#startAll}): those not prepared (a workflow this JVM has not
     * started yet), and those the statement did not write (a key taken, a revision no longer current), which the
     * transaction tells apart. If the database refused a value of a start (a text it cannot store, say), the
     * statement wrote nothing, and the transaction commits each start alone, so that one fails by itself and not its
     * neighbours. Any other failure (the database away, the connection lost while committing, when the group may have
     * been applied) fails the group, and each client retries with its key.
     */
    private void commit(List<Pending> group) {
        List<Pending> prepared = group.stream().filter(p -> p.prepared() != null).toList();
        List<Pending> rest = new ArrayList<>(group.size());
        group.stream().filter(p -> p.prepared() == null).forEach(rest::add);
        if (!prepared.isEmpty()) {
            try {
                RunStarter.Result[] written = starter.startPrepared(prepared.stream().map(Pending::prepared).toList());
                for (int i = 0; i < written.length; i++) {
                    if (written[i] == null) {
                        rest.add(prepared.get(i));
                    } else {
                        prepared.get(i).answer().complete(written[i].started());
                    }
                }
            } catch (RuntimeException failed) {
                if (!DatabaseOutage.isDataException(failed)) {
                    group.forEach(p -> p.answer().completeExceptionally(failed));
                    return;
                }
                rest.addAll(prepared);
            }
        }
        if (!rest.isEmpty()) {
            commitInTransaction(rest);
        }
    }

    private void commitInTransaction(List<Pending> group) {
        List<RunStarter.Result> results;
        try {
            results = QuarkusTransaction.requiringNew()
                    .call(() -> starter.startAll(group.stream().map(Pending::request).toList()));
        } catch (RuntimeException failed) {
            if (group.size() > 1 && DatabaseOutage.isDataException(failed)) {
                LOG.debugf("a group of %d starts held a value the database refused (%s); committing each alone",
                        group.size(), failed.getMessage());
                group.forEach(p -> commitInTransaction(List.of(p)));
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
