package dev.ductor.aggregate.core;

import java.time.Instant;
import java.util.List;

/**
 * A rule as its event stream says it is now. The stream has one kind of event, {@value #DEFINED}, whose
 * payload is the whole normalised rule ({@link Rule#toJson}): a create and every replacement are each one
 * such event, and the last one wins. (Disabling is a replacement with {@code "enabled": false}.)
 * {@link #version} is the stream's version, 0 for a rule that does not exist; it is the rule's ETag.
 */
public record RuleState(String name, Rule rule, long version, Instant createdAt, Instant updatedAt, String updatedBy) {

    public static final String AGGREGATE_TYPE = "rule";
    public static final String DEFINED = "RuleDefined";
    /** The rule is gone; a later {@value #DEFINED} makes it anew on the same stream. */
    public static final String DELETED = "RuleDeleted";

    public static RuleState initial(String name) {
        return new RuleState(name, null, 0, null, null, null);
    }

    public static RuleState fold(String name, List<AggregateEvent> events) {
        RuleState state = initial(name);
        for (AggregateEvent event : events) {
            state = state.apply(event);
        }
        return state;
    }

    public boolean exists() {
        return rule != null;
    }

    /** The state after {@code event}, which must be the stream's next one. */
    public RuleState apply(AggregateEvent event) {
        if (event.version() != version + 1) {
            throw new IllegalStateException("rule '" + name + "': event version " + event.version() + " does not follow "
                    + version);
        }
        if (DELETED.equals(event.type()) && exists()) {
            return new RuleState(name, null, event.version(), null, event.recordedAt(), event.recordedBy());
        }
        if (!DEFINED.equals(event.type())) {
            throw new IllegalStateException("rule '" + name + "': unknown event type '" + event.type() + "'");
        }
        return new RuleState(name, Rule.fromJson(event.payload()), event.version(),
                createdAt == null ? event.recordedAt() : createdAt, event.recordedAt(), event.recordedBy());
    }

    public static NewEvent deleted() {
        return new NewEvent(DELETED, com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());
    }

    /** The event that makes {@code rule} the rule's definition, whether it exists yet or not. */
    public static NewEvent defined(Rule rule) {
        return new NewEvent(DEFINED, rule.toJson());
    }
}
