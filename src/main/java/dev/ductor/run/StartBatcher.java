package dev.ductor.run;

import dev.ductor.config.DuctorConfig;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Starts that arrive together commit together: a group commit for the API's run starts. Whoever holds the lock
 * commits every start queued at that moment in one transaction ({@link RunStarter#startAll}); those who queued while
 * it committed find their start done when they get the lock, or commit the next group themselves. A lone start
 * commits at once, so nobody waits for a group to fill; under load each commit, its round trips and its WAL flush
 * are shared by the starts that queued during the one before.
 *
 * <p>A start whose group fails (the database went away) fails with it: none of that group was committed, and the
 * client retries with its idempotency key as after any failed start.
 */
@ApplicationScoped
public class StartBatcher {

    /** The most starts one transaction takes: bounds a commit's size and the wait of the first start in it. */
    static final int MAX_GROUP = 64;

    @Inject RunStarter starter;
    @Inject DuctorConfig config;
    /** Whether the last group held more than one start: starts are arriving together, so one lingers for the next. */
    private boolean lastShared;
    private final ConcurrentLinkedQueue<Pending> queued = new ConcurrentLinkedQueue<>();
    private final ReentrantLock committing = new ReentrantLock();

    private static final class Pending {
        final RunStarter.Request request;
        RunStarter.Result result;
        RuntimeException failed;

        Pending(RunStarter.Request request) {
            this.request = request;
        }

        boolean done() {
            return result != null || failed != null;
        }
    }

    /** Starts a run, in a group with whatever other starts are queued; answers as {@link RunStarter#start} does. */
    public RunStarter.Started start(String tenant, String workflow, StartRequest request) {
        Pending mine = new Pending(new RunStarter.Request(tenant, workflow, request));
        queued.add(mine);
        committing.lock();
        try {
            // Only the lock's holder completes starts, so a start not done yet is still queued: this group takes it.
            if (!mine.done()) {
                commitQueued();
            }
        } finally {
            committing.unlock();
        }
        if (mine.failed != null) {
            throw mine.failed;
        }
        return mine.result.orThrow();
    }

    private void commitQueued() {
        long linger = config.starts().linger().toNanos();
        if (lastShared && linger > 0) {
            LockSupport.parkNanos(linger); // under the lock: the starts that arrive meanwhile join this group
        }
        List<Pending> group = new ArrayList<>();
        for (Pending next; group.size() < MAX_GROUP && (next = queued.poll()) != null; ) {
            group.add(next);
        }
        lastShared = group.size() > 1;
        try {
            List<RunStarter.Result> results = QuarkusTransaction.requiringNew()
                    .call(() -> starter.startAll(group.stream().map(p -> p.request).toList()));
            for (int i = 0; i < group.size(); i++) {
                group.get(i).result = results.get(i);
            }
        } catch (RuntimeException failed) {
            group.forEach(p -> p.failed = failed);
        }
    }
}
