package dev.ductor.run.command;

import dev.ductor.error.BadRequestException;
import dev.ductor.queue.DeadLetters;
import dev.ductor.run.commit.RunCommitter;
import dev.ductor.run.read.RunQueries;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.util.List;
import java.util.UUID;

/**
 * An operator's view of poison runs: the tenant's parked runs, and re-queueing a run's dead letters once the cause is
 * fixed. Works on runs that cannot be loaded: only the run's header (tenant, status) is read, never its state.
 */
@ApplicationScoped
public class ParkedRuns {

    public static final int MAX_LIMIT = 500;

    @Inject RunQueries queries;
    @Inject DeadLetters deadLetters;
    @Inject RunCommitter committer;
    @Inject Clock clock;

    @Transactional
    public List<DeadLetters.Summary> list(String tenant, Integer limit) {
        int size = limit == null ? 50 : limit;
        if (size < 1 || size > MAX_LIMIT) {
            throw new BadRequestException("limit", "limit must be between 1 and " + MAX_LIMIT);
        }
        return deadLetters.list(tenant, size);
    }

    /** Re-queues the run's dead letters, due now; returns how many (0 when it has none). 404 for another tenant's run. */
    @Transactional
    public int retry(String tenant, UUID runId) {
        queries.header(tenant, runId);
        int requeued = deadLetters.requeue(tenant, runId, clock.instant());
        if (requeued > 0) {
            committer.nudgeAfterCommit();
        }
        return requeued;
    }
}
