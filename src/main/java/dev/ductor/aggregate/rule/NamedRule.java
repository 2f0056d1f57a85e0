package dev.ductor.aggregate.rule;

import dev.ductor.aggregate.core.Rule;

/** A rule with its name, as the projection holds it for matching. */
public record NamedRule(String name, Rule rule) {
}
