package dev.ductor.worker;

import dev.ductor.config.DuctorConfig;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.TaskLeases;
import dev.ductor.run.commit.BatchGatherer;
import dev.ductor.run.commit.GroupCommit;
import dev.ductor.run.LocalDispatch;
import dev.ductor.run.LocalSteps;
import dev.ductor.run.StepReport;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * External workers' results applied to their runs the way in-process results are: in group commits
 * ({@link GroupCommit#applyReported}), whatever reports have arrived sharing one transaction, each run ticked on its
 * result in it, so a result costs no inbox round, wakeup, coordinator claim and tick of its own. A run that lost its
 * race takes the inbox path inside that commit, as in-process results do.
 *
 * <p>A report that says its worker has a free slot ({@code next}) may be answered with that worker's next task: the
 * steps the commit dispatches, of the handlers it named, are leased to it in the same commit when the
 * {@link LocalDispatch} is eager (as the in-process worker's and Temporal's eager activity dispatch): a chain's next
 * step goes to the worker that finished the one before, without a claim. Each group commit is one worker's (its lease owner), so what it leases goes to that
 * worker alone.
 *
 * <p>The HTTP request waits for its commit. The caller falls back to the plain path (the inbox, {@link TaskResults})
 * when this committer is not running, when its report was fenced off (to tell an identical repeat, 200, from a lost
 * lease, 409), and when the commit failed for a reason other than the database being away.
 */
@ApplicationScoped
public class ExternalResults {

    private static final Logger LOG = Logger.getLogger(ExternalResults.class);

    @Inject GroupCommit groupCommit;
    @Inject TaskLeases leases;
    @Inject DuctorConfig config;
    @Inject Clock clock;
    @Inject LocalDispatch dispatch;

    /** What became of one report: fenced off (the caller decides 200 or 409), or applied with the next tasks leased. */
    public record Applied(boolean fenced, List<QueueItem> next) {
    }

    private record Pending(StepReport report, String owner, Set<String> nextHandlers, CompletableFuture<Applied> answer) {
    }

    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private volatile boolean running;
    private Thread committer;

    /** Starts the committer ({@link GroupedCommits}, at start-up). */
    void start() {
        running = true;
        committer = new Thread(this::commitLoop, "ductor-external-commit");
        committer.setDaemon(true);
        committer.start();
    }

    /** Commits what is queued, then stops; reports that come later take the plain path. */
    void stop(@Observes ShutdownEvent event) {
        if (!running) {
            return;
        }
        running = false;
        try {
            committer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Queues a report for the next group commit; the answer completes once it is durable. {@code nextHandlers}: the
     * handlers its worker has a free slot for (empty: it asks for none). Null when the committer is not running.
     */
    public CompletableFuture<Applied> submit(StepReport report, String owner, Set<String> nextHandlers) {
        if (!running) {
            return null;
        }
        Pending pending = new Pending(report, owner, nextHandlers, new CompletableFuture<>());
        queue.add(pending);
        if (!running && queue.remove(pending)) {
            return null; // stopped meanwhile, and nobody took it
        }
        return pending.answer();
    }

    private void commitLoop() {
        int max = config.worker().commitBatchSize();
        BatchGatherer<Pending> groups = new BatchGatherer<>(queue, max, config.worker().commitLinger().toNanos());
        List<Pending> batch = new ArrayList<>(max);
        while (running || !queue.isEmpty()) {
            try {
                if (groups.next(batch)) {
                    commit(batch);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                batch.forEach(p -> p.answer().complete(null));
                return;
            } catch (RuntimeException e) {
                batch.forEach(p -> p.answer().completeExceptionally(e));
            } finally {
                batch.clear();
            }
        }
    }

    /** One group commit per worker among the batch: the next steps a commit leases are all for the same worker. */
    private void commit(List<Pending> batch) {
        Map<String, List<Pending>> byOwner = new LinkedHashMap<>();
        for (Pending pending : batch) {
            byOwner.computeIfAbsent(String.valueOf(pending.owner()), o -> new ArrayList<>()).add(pending);
        }
        for (List<Pending> group : byOwner.values()) {
            try {
                GroupCommit.Outcome outcome = groupCommit.applyReported(group.stream().map(Pending::report).toList(),
                        eager(group));
                answer(group, outcome);
            } catch (RuntimeException failed) {
                if (DatabaseOutage.isOutage(failed)) {
                    group.forEach(p -> p.answer().completeExceptionally(failed)); // 503: the worker sends it again
                } else {
                    LOG.warnf("a group commit of %d external results failed (%s); each goes the plain way", group.size(),
                            failed.getMessage());
                    group.forEach(p -> p.answer().complete(null)); // null: the caller reports through the inbox
                }
            }
        }
    }

    /** Slots the group's worker offered: one per report that asked, for the handlers they named. */
    private LocalSteps eager(List<Pending> group) {
        int slots = (int) group.stream().filter(p -> !p.nextHandlers().isEmpty()).count();
        Set<String> handlers = new HashSet<>();
        group.forEach(p -> handlers.addAll(p.nextHandlers()));
        return dispatch.reportingWorker(group.get(0).owner(), slots, handlers);
    }

    /** Completes each request: fenced or applied, and the tasks leased to its worker, its own run's first. */
    private void answer(List<Pending> group, GroupCommit.Outcome outcome) {
        List<QueueItem> unassigned = new ArrayList<>(outcome.leased());
        Map<Pending, List<QueueItem>> next = new LinkedHashMap<>();
        for (Pending p : group) {
            next.put(p, new ArrayList<>());
        }
        for (Pending p : group) { // a run's next step to the request that finished the step before it
            if (!p.nextHandlers().isEmpty()) {
                unassigned.stream().filter(item -> item.runId().equals(p.report().runId())).findFirst().ifPresent(item -> {
                    next.get(p).add(item);
                    unassigned.remove(item);
                });
            }
        }
        for (Pending p : group) { // the rest to the requests whose slot is still free
            if (!p.nextHandlers().isEmpty() && next.get(p).isEmpty() && !unassigned.isEmpty()) {
                next.get(p).add(unassigned.remove(0));
            }
        }
        if (!unassigned.isEmpty()) {
            handBack(unassigned); // more than the slots offered: not expected, never left to lapse
        }
        for (Pending p : group) {
            p.answer().complete(new Applied(outcome.fencedTasks().contains(p.report().taskId()), next.get(p)));
        }
    }

    private void handBack(List<QueueItem> items) {
        try {
            QuarkusTransaction.requiringNew().run(() -> {
                Instant now = clock.instant();
                items.forEach(item -> leases.release(item.id(), item.leaseToken(), now));
            });
        } catch (RuntimeException e) {
            LOG.infof("%d task(s) leased eagerly could not be handed back (%s); their leases will run out", items.size(),
                    e.getMessage());
        }
    }

    /** How long a request waits for its commit before it takes the plain path (which the commit's fencing makes safe). */
    static long waitMillis() {
        return TimeUnit.SECONDS.toMillis(30);
    }
}
