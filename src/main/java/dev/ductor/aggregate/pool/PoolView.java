package dev.ductor.aggregate.pool;

import io.quarkus.runtime.annotations.RegisterForReflection;
import dev.ductor.aggregate.core.PoolState;

import java.time.Instant;

/** A pool as the API shows it; {@code version} is its stream version, the ETag. */
@RegisterForReflection
public record PoolView(String name, int capacity, boolean paused, long version, Instant createdAt, Instant updatedAt) {

    static PoolView of(String name, PoolState state) {
        return new PoolView(name, state.capacity(), state.paused(), state.version(), state.createdAt(), state.updatedAt());
    }
}
