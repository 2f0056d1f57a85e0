package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The events of a pool's stream (aggregate type {@code pool}) and their payloads:
 * <ul>
 * <li>{@code PoolDefined {capacity, paused}}: the first event, always at version 1;</li>
 * <li>{@code PoolCapacityChanged {from, to}};</li>
 * <li>{@code PoolPaused {}} and {@code PoolResumed {}};</li>
 * <li>{@code PoolDeleted {}}: the pool is gone; a later {@code PoolDefined} makes it anew on the same stream.</li>
 * </ul>
 * Stored events are never rewritten, so these names and fields are a format: add, never rename.
 */
public final class PoolEvents {

    public static final String AGGREGATE_TYPE = "pool";

    public static final String DEFINED = "PoolDefined";
    public static final String CAPACITY_CHANGED = "PoolCapacityChanged";
    public static final String PAUSED = "PoolPaused";
    public static final String RESUMED = "PoolResumed";
    public static final String DELETED = "PoolDeleted";

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private PoolEvents() {
    }

    public static NewEvent defined(int capacity, boolean paused) {
        ObjectNode payload = JSON.objectNode();
        payload.put("capacity", capacity);
        payload.put("paused", paused);
        return new NewEvent(DEFINED, payload);
    }

    public static NewEvent capacityChanged(int from, int to) {
        ObjectNode payload = JSON.objectNode();
        payload.put("from", from);
        payload.put("to", to);
        return new NewEvent(CAPACITY_CHANGED, payload);
    }

    public static NewEvent paused() {
        return new NewEvent(PAUSED, JSON.objectNode());
    }

    public static NewEvent resumed() {
        return new NewEvent(RESUMED, JSON.objectNode());
    }

    public static NewEvent deleted() {
        return new NewEvent(DELETED, JSON.objectNode());
    }
}
