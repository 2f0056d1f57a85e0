package dev.ductor.queue;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.Tiers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The configured tiers and the share of each ({@code ductor.queue.tier-weights.<tier>}), rendered once for the claim SQL. */
@ApplicationScoped
public class TierWeights {

    private static final Pattern TIER = Pattern.compile("[a-z][a-z0-9_-]{0,30}");

    private final String sqlValues;
    private final Tiers tiers;

    @Inject
    public TierWeights(DuctorConfig config) {
        this(config.queue().tierWeights());
    }

    public TierWeights(Map<String, Integer> weights) {
        this.tiers = Tiers.of(weights);
        Map<String, Integer> sorted = new TreeMap<>(weights);
        sorted.forEach((tier, weight) -> {
            // Inlined into SQL, so only plain names and positive integers are accepted.
            if (!TIER.matcher(tier).matches() || weight == null || weight < 1) {
                throw new IllegalArgumentException("ductor.queue.tier-weights." + tier + " must be a positive integer");
            }
        });
        this.sqlValues = sorted.entrySet().stream()
                .map(e -> "('" + e.getKey() + "', " + e.getValue() + ".0)")
                .collect(Collectors.joining(", "));
    }

    /** The configured tiers, the one list every check and every per-tier figure uses (injectable as {@link Tiers}). */
    @Produces
    @Singleton
    public Tiers tiers() {
        return tiers;
    }

    String sqlValues() {
        return sqlValues;
    }
}
