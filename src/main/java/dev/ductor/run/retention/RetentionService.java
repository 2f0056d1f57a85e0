package dev.ductor.run.retention;

import dev.ductor.config.DuctorConfig;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.metrics.DuctorMetrics;
import dev.ductor.run.RunIds;
import dev.ductor.run.core.RetentionPolicy;
import dev.ductor.run.core.RetentionPolicy.Member;
import dev.ductor.run.retention.RetentionScan.Scanned;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Deletes finished runs past their retention period (their revision's {@code retention}, else
 * {@code ductor.retention.default}) with every row they own, in bounded batches, each one short transaction. The
 * {@code @Scheduled} method only triggers {@link #runOnce}; safety across pods comes from {@link RunPurge}'s locks
 * (SKIP LOCKED) and its DELETE's own checks (still finished, still at the version judged), not from the scheduler, so
 * any number of pods may run it at once.
 *
 * <p>The scan walks the top-level runs by run id with a cursor kept in this pod ({@link RetentionScan} says why not an
 * index): each batch reads the next page after the cursor, deletes the expired trees in it, and moves the cursor past
 * it; a short page ends the pass and the next one starts from the beginning, where the runs still running or within
 * their period are met again.
 */
@ApplicationScoped
public class RetentionService {

    private static final Logger LOG = Logger.getLogger(RetentionService.class);
    private static final UUID FIRST = new UUID(0, 0);

    @Inject RetentionScan scan;
    @Inject RetentionPeriods periods;
    @Inject RunPurge purge;
    @Inject DuctorMetrics metrics;
    @Inject DuctorConfig config;
    @Inject Clock clock;

    /** Where the next batch of this pod starts: the last run id of the batch before it. */
    private volatile UUID cursor = FIRST;

    /** What one batch did. {@code passEnded}: it read the last page below the cutoff. */
    public record Batch(int scanned, RunPurge.Deleted deleted, boolean passEnded) {
    }

    /** What one pass did. */
    public record Pass(int batches, int scanned, int deletedRuns) {
    }

    @Scheduled(every = "${ductor.retention.interval:1m}", delayed = "${ductor.retention.interval:1m}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void trigger() {
        if (!config.retention().enabled()) {
            return;
        }
        try {
            Pass pass = runOnce(clock.instant());
            if (pass.deletedRuns() > 0) {
                LOG.debugf("retention deleted %d runs after scanning %d in %d batches", pass.deletedRuns(), pass.scanned(),
                        pass.batches());
            }
        } catch (RuntimeException e) {
            // Nothing is half-done (each batch is one transaction) and the cursor stays: the next pass goes on from here.
            if (DatabaseOutage.isOutage(e)) {
                LOG.debugf("retention pass ended by a database outage: %s", e.getMessage());
            } else {
                LOG.warnf(e, "retention pass failed; the next pass tries again");
            }
        }
    }

    /** Up to {@code ductor.retention.max-batches-per-pass} batches as of {@code now}, until a pass ends. */
    public Pass runOnce(Instant now) {
        UUID before = cutoff(now);
        if (before == null) {
            return new Pass(0, 0, 0);
        }
        int batches = 0;
        int scanned = 0;
        int deleted = 0;
        while (batches < config.retention().maxBatchesPerPass()) {
            Batch batch = batch(now, before);
            batches++;
            scanned += batch.scanned();
            deleted += batch.deleted().runs();
            if (batch.passEnded()) {
                break;
            }
        }
        return new Pass(batches, scanned, deleted);
    }

    /**
     * The first run id no run that may have expired by {@code now} can have, or null when no run can ever expire (the
     * default is zero and no revision names a retention).
     */
    UUID cutoff(Instant now) {
        Duration shortest = QuarkusTransaction.requiringNew().call(periods::shortest);
        return shortest.isZero() ? null : RunIds.firstAt(now.minus(shortest));
    }

    /** One batch: the next page of top-level runs below {@code before}, its expired trees deleted, in one transaction. */
    public Batch batch(Instant now, UUID before) {
        UUID after = cursor;
        int size = config.retention().batchSize();
        List<Scanned> page = new ArrayList<>();
        RunPurge.Deleted deleted = QuarkusTransaction.requiringNew().call(() -> {
            page.addAll(scan.roots(after, before, size));
            List<UUID> expiredRoots = page.stream().filter(root -> RetentionPolicy.expired(member(root), now))
                    .map(Scanned::runId).toList();
            Map<UUID, List<Scanned>> trees = new LinkedHashMap<>();
            for (Scanned run : scan.trees(expiredRoots)) {
                trees.computeIfAbsent(run.root(), r -> new ArrayList<>()).add(run);
            }
            List<Map<UUID, Long>> doomed = new ArrayList<>();
            for (List<Scanned> tree : trees.values()) {
                if (RetentionPolicy.treeExpired(tree.stream().map(this::member).toList(), now)) {
                    Map<UUID, Long> versions = new LinkedHashMap<>();
                    tree.forEach(run -> versions.put(run.runId(), run.version()));
                    doomed.add(versions);
                }
            }
            return purge.purge(doomed);
        });
        metrics.retentionDeleted("workflow_run", deleted.runs());
        metrics.retentionDeleted("run_transition", deleted.transitions());
        metrics.retentionDeleted("run_inbox", deleted.inbox());
        metrics.retentionDeleted("queue_item", deleted.queueItems());
        boolean passEnded = page.size() < size;
        cursor = passEnded ? FIRST : page.get(page.size() - 1).runId();
        return new Batch(page.size(), deleted, passEnded);
    }

    private Member member(Scanned run) {
        return new Member(run.status(), run.finishedAt(), periods.of(run.tenant(), run.workflow(), run.revision()));
    }
}
