package dev.ductor.config;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The tiers a run, a rule's start or a task may name: those given a share in {@code ductor.queue.tier-weights.<tier>},
 * heaviest first (interactive, standard, bulk by default). A start that names none is {@value #DEFAULT}.
 */
public record Tiers(List<String> names) {

    public static final String DEFAULT = "standard";

    public static Tiers of(Map<String, Integer> weights) {
        if (!weights.containsKey(DEFAULT)) {
            throw new IllegalArgumentException("ductor.queue.tier-weights must give the default tier '" + DEFAULT + "' a weight");
        }
        return new Tiers(weights.keySet().stream()
                .sorted(Comparator.comparing((String tier) -> -weights.get(tier)).thenComparing(Comparator.naturalOrder()))
                .toList());
    }

    public boolean contains(String tier) {
        return names.contains(tier);
    }

    /** For messages: "interactive, standard, bulk". */
    public String describe() {
        return String.join(", ", names);
    }
}
