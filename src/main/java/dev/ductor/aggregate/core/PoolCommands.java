package dev.ductor.aggregate.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The pure decision of a pool edit: from the current state and the wanted capacity and pause, the events
 * that make it so. Nothing changes, no events: an edit that repeats the current settings appends nothing
 * and keeps the version.
 */
public final class PoolCommands {

    public static final int MIN_CAPACITY = 0;
    public static final int MAX_CAPACITY = 100_000;

    private PoolCommands() {
    }

    public static List<NewEvent> decide(PoolState current, int capacity, boolean paused) {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be from " + MIN_CAPACITY + " to " + MAX_CAPACITY + ", not " + capacity);
        }
        if (!current.defined()) {
            return List.of(PoolEvents.defined(capacity, paused));
        }
        List<NewEvent> events = new ArrayList<>(2);
        if (capacity != current.capacity()) {
            events.add(PoolEvents.capacityChanged(current.capacity(), capacity));
        }
        if (paused != current.paused()) {
            events.add(paused ? PoolEvents.paused() : PoolEvents.resumed());
        }
        return List.copyOf(events);
    }
}
