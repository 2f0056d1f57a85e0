package dev.ductor.fleet;

import org.eclipse.microprofile.openapi.annotations.media.Schema;
import dev.ductor.queue.TierWeights;
import dev.ductor.run.read.RunThroughput;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The last hour of a tenant's fleet, minute by minute ({@code GET /api/v1/fleet/history}), from what the server keeps
 * itself, without Prometheus: runs started and finished, failures, the median and 99th percentile time to finish
 * ({@link RunThroughput}), the queue depth per tier and the pods alive ({@link FleetSampler}'s samples).
 */
@ApplicationScoped
public class FleetHistory {

    public static final Duration WINDOW = Duration.ofHours(1);

    /**
     * One minute of the window. {@code queueDepth} is null for a minute no pod sampled (a gap in the chart, not a
     * zero); {@code p50Ms} and {@code p99Ms} are null when no run finished in it.
     */
    public record Minute(Instant at, long started, long finished, long failed,
                         @Schema(nullable = true) Double p50Ms, @Schema(nullable = true) Double p99Ms,
                         @Schema(nullable = true) Map<String, Long> queueDepth, long pods) {
    }

    /** {@code minutes}: 60 of them, oldest first, the last one the current (partial) minute. */
    public record History(Instant from, Instant to, List<String> tiers, List<Minute> minutes) {
    }

    @Inject RunThroughput runs;
    @Inject FleetSamples samples;
    @Inject TierWeights weights;
    @Inject Clock clock;

    @Transactional
    public History of(String tenant) {
        Instant to = clock.instant().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1));
        Instant from = to.minus(WINDOW);
        Map<Instant, RunThroughput.Minute> throughput = runs.perMinute(tenant, from, to).stream()
                .collect(Collectors.toMap(RunThroughput.Minute::at, Function.identity()));
        Map<Instant, Map<String, Long>> depth = samples.queueDepth(tenant, from, to);
        Map<Instant, Long> pods = samples.podsAlive(from, to);
        List<String> tiers = weights.tiers().names();
        List<Minute> minutes = new ArrayList<>();
        for (Instant at = from; at.isBefore(to); at = at.plus(Duration.ofMinutes(1))) {
            RunThroughput.Minute r = throughput.get(at);
            Map<String, Long> sampled = depth.get(at);
            Map<String, Long> perTier = null;
            if (sampled != null) { // every configured tier, 0 when nothing of it was due
                perTier = new LinkedHashMap<>();
                for (String tier : tiers) {
                    perTier.put(tier, sampled.getOrDefault(tier, 0L));
                }
                sampled.forEach(perTier::putIfAbsent);
            }
            minutes.add(r == null
                    ? new Minute(at, 0, 0, 0, null, null, perTier, pods.getOrDefault(at, 0L))
                    : new Minute(at, r.started(), r.finished(), r.failed(), r.p50Ms(), r.p99Ms(), perTier, pods.getOrDefault(at, 0L)));
        }
        return new History(from, to, tiers, minutes);
    }
}
