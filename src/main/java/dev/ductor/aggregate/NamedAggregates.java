package dev.ductor.aggregate;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Inject;

import java.util.OptionalLong;

/**
 * Aggregates edited whole and found by name (rules, schedules): each is its stream in {@link AggregateStore}, one
 * definition event per create or replacement, appended at the version the editor read (If-Match). {@code V} is the
 * aggregate as the API shows it.
 */
public abstract class NamedAggregates<V> {

    /** What a PUT did: {@code created} or replaced, and the aggregate as it now is. */
    public record Put<V>(boolean created, V view) {
    }

    @Inject protected AggregateStore store;

    private final String type;

    protected NamedAggregates(String type) {
        this.type = type;
    }

    public AggregateKey key(String tenant, String name) {
        return new AggregateKey(type, tenant, name);
    }

    /**
     * Creates the aggregate (no If-Match) or replaces it (If-Match = its current version).
     *
     * @throws AggregateConflictException when another editor appended since this one read the stream
     */
    public abstract Put<V> put(String tenant, String name, JsonNode body, OptionalLong ifMatch, String recordedBy);

    public abstract V get(String tenant, String name);
}
