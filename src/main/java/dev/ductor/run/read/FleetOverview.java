package dev.ductor.run.read;

import dev.ductor.queue.QueueOverview;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.List;

/**
 * A tenant's load right now ({@code GET /api/v1/fleet}): queue depth and lag per tier, tasks leased, RUNNING runs,
 * and the latest runs Ductor failed itself (stuck or livelock).
 */
@ApplicationScoped
public class FleetOverview {

    static final int RECENT_FORCED_FAILURES = 20;

    public record Fleet(Instant at, List<QueueOverview.TierLoad> tiers, long leasedTasks, long runningRuns,
                        List<ForcedFailures.ForcedFailure> forcedFailures) {
    }

    @Inject QueueOverview queue;
    @Inject ForcedFailures forced;
    @Inject RunQueries runs;

    public Fleet of(String tenant) {
        QueueOverview.Snapshot snapshot = queue.of(tenant);
        return new Fleet(snapshot.at(), snapshot.tiers(), snapshot.leasedTasks(), runs.running(tenant),
                forced.recent(tenant, RECENT_FORCED_FAILURES));
    }
}
