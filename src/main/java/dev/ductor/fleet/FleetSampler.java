package dev.ductor.fleet;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.PodIdentity;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.queue.QueueOverview;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Once a minute, on every pod: records that this pod is alive in this minute, samples the fleet's queue depth by
 * tenant and tier unless another pod already did for this minute, and prunes samples older than
 * {@link #KEPT}. Safety across pods comes from the inserts' {@code ON CONFLICT DO NOTHING}, not from the scheduler.
 */
@ApplicationScoped
public class FleetSampler {

    /** How long samples are kept: the history shows an hour; a day leaves room to look back further later. */
    static final Duration KEPT = Duration.ofDays(1);

    private static final Logger LOG = Logger.getLogger(FleetSampler.class);

    @Inject FleetSamples samples;
    @Inject QueueOverview queue;
    @Inject PodIdentity pod;
    @Inject Clock clock;
    @Inject DuctorConfig config;

    // At second 5 of each minute rather than 0: away from the minute's edge, so a pod's clock a little behind the
    // database's still samples the minute it means.
    @Scheduled(cron = "5 * * * * ?", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void sample() {
        if (!config.fleet().samplerEnabled()) {
            return;
        }
        // A minute without a sample is a gap in the charts, nothing more.
        DatabaseOutage.skipIfUnreachable(LOG, "sampling the fleet failed", this::runOnce);
    }

    /** One sample of the current minute, in one transaction. */
    public void runOnce() {
        Instant now = clock.instant();
        Instant minute = now.truncatedTo(ChronoUnit.MINUTES);
        QuarkusTransaction.requiringNew().run(() -> {
            samples.recordPod(minute, pod.name());
            samples.recordQueueDepth(minute, queue.depthByTenantAndTier(now));
            samples.prune(minute.minus(KEPT));
        });
    }
}
