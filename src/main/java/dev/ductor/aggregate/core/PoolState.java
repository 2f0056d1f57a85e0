package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.List;

/**
 * A pool as its events say: how many of its tasks may be leased at once across the fleet, whether it is
 * paused, and the stream version this state was folded up to (0: never defined). Pure: no framework, no
 * database; {@link #fold} is the only way a state is made from events.
 */
public record PoolState(boolean defined, int capacity, boolean paused, long version, Instant createdAt, Instant updatedAt) {

    /** The pool before its first event. */
    public static final PoolState UNDEFINED = new PoolState(false, 0, false, 0, null, null);

    /** Folds the stream, in version order, from {@link #UNDEFINED}. */
    public static PoolState fold(List<AggregateEvent> events) {
        PoolState state = UNDEFINED;
        for (AggregateEvent event : events) {
            state = state.apply(event);
        }
        return state;
    }

    /**
     * The state after one more event. Versions must follow without gaps and the stream must start with
     * {@code PoolDefined} (as must the events after a {@code PoolDeleted}): anything else means the stream is not a
     * pool's, and folding it on would hide that.
     */
    public PoolState apply(AggregateEvent event) {
        if (event.version() != version + 1) {
            throw new IllegalStateException("pool event at version " + event.version() + " follows version " + version);
        }
        if (!defined && !PoolEvents.DEFINED.equals(event.type())) {
            throw new IllegalStateException("a pool's stream starts with " + PoolEvents.DEFINED + ", not " + event.type());
        }
        Instant created = defined ? createdAt : event.recordedAt();
        switch (event.type()) {
            case PoolEvents.DEFINED:
                if (defined) {
                    throw new IllegalStateException("pool defined twice, again at version " + event.version());
                }
                return new PoolState(true, integer(event, "capacity"), bool(event, "paused"), event.version(), created,
                        event.recordedAt());
            case PoolEvents.CAPACITY_CHANGED:
                return new PoolState(true, integer(event, "to"), paused, event.version(), created, event.recordedAt());
            case PoolEvents.PAUSED:
                return new PoolState(true, capacity, true, event.version(), created, event.recordedAt());
            case PoolEvents.RESUMED:
                return new PoolState(true, capacity, false, event.version(), created, event.recordedAt());
            case PoolEvents.DELETED: // undefined again, at this version: a new PoolDefined continues the stream
                return new PoolState(false, 0, false, event.version(), null, event.recordedAt());
            default:
                throw new IllegalStateException("unknown pool event " + event.type() + " at version " + event.version());
        }
    }

    private static int integer(AggregateEvent event, String field) {
        JsonNode value = event.payload() == null ? null : event.payload().get(field);
        if (value == null || !value.canConvertToInt()) {
            throw new IllegalStateException(event.type() + " at version " + event.version() + " has no integer '" + field + "'");
        }
        return value.intValue();
    }

    private static boolean bool(AggregateEvent event, String field) {
        JsonNode value = event.payload() == null ? null : event.payload().get(field);
        if (value == null || !value.isBoolean()) {
            throw new IllegalStateException(event.type() + " at version " + event.version() + " has no boolean '" + field + "'");
        }
        return value.booleanValue();
    }
}
