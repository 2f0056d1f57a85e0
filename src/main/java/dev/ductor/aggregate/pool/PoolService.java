package dev.ductor.aggregate.pool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.AggregateConflictException;
import dev.ductor.aggregate.AggregateKey;
import dev.ductor.aggregate.AggregateStore;
import dev.ductor.aggregate.core.AggregateEvent;
import dev.ductor.aggregate.core.NewEvent;
import dev.ductor.aggregate.core.PoolCommands;
import dev.ductor.aggregate.core.PoolEvents;
import dev.ductor.aggregate.core.PoolState;
import dev.ductor.error.ConflictException;
import dev.ductor.error.DuctorException;
import dev.ductor.error.NotFoundException;
import dev.ductor.error.VersionConflictException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Pools, event-sourced: one transactional shell per edit. It folds the pool's stream, checks the version the
 * editor read (If-Match), lets {@link PoolCommands} decide the events, appends them with that version as the
 * expected one, and moves the {@code eec_pool} projection from that version, all in one transaction. A racing
 * editor who appended first makes the append (or the projection's version check) fail with
 * {@link AggregateConflictException}; the transaction rolls back with nothing written, and the caller reports it
 * with the pool read afresh ({@link #lostRace}).
 */
@ApplicationScoped
public class PoolService {

    @Inject AggregateStore store;
    @Inject PoolProjection projection;
    @Inject Clock clock;

    /** What an edit did: created the pool, changed it (appended events), or found nothing to change. */
    public record PutResult(boolean created, boolean changed, PoolView pool) {
    }

    /**
     * Creates (no {@code ifMatch}) or edits (with the version read) a pool. {@code paused} null keeps the current
     * setting (not paused for a new pool), so changing the capacity never resumes a paused pool by accident.
     * {@code sent} is what the caller sent, returned as {@code rejected} when the edit is refused.
     */
    @Transactional
    public PutResult put(String tenant, String name, int capacity, Boolean paused, OptionalLong ifMatch, String recordedBy,
                         Object sent) {
        AggregateKey key = key(tenant, name);
        PoolState current = PoolState.fold(store.load(key));
        if (!current.defined() && ifMatch.isPresent()) {
            throw conflict(name, ifMatch.getAsLong(), null, sent);
        }
        if (current.defined()) {
            VersionConflictException.requireVersion("Pool '" + name + "'", ifMatch, current.version(),
                    () -> PoolView.of(name, current), sent);
        }
        List<NewEvent> events = PoolCommands.decide(current, capacity, paused == null ? current.paused() : paused);
        if (events.isEmpty()) {
            return new PutResult(false, false, PoolView.of(name, current));
        }
        store.append(key, current.version(), events, recordedBy);
        PoolState next = PoolState.fold(store.load(key));
        boolean projected = current.defined()
                ? projection.update(tenant, name, current.version(), next, clock.instant())
                : projection.insert(tenant, name, next, clock.instant());
        if (!projected) {
            // The stream accepted the append, so the projection disagreeing means a writer bypassed this shell:
            // refuse rather than overwrite, and roll the append back with it.
            throw new AggregateConflictException(key, current.version(), projection.version(tenant, name));
        }
        return new PutResult(!current.defined(), true, PoolView.of(name, next));
    }

    /**
     * Deletes the pool at the version the caller read (If-Match is required): a {@code PoolDeleted} event and the
     * projection's row gone, in one transaction. Its queued tasks wait, as for a pool never defined, until a pool of
     * that name is created again. {@code sent} is returned as {@code rejected} when the delete is refused. Returns the
     * stream's version after the delete.
     */
    @Transactional
    public long delete(String tenant, String name, OptionalLong ifMatch, String recordedBy, JsonNode sent) {
        AggregateKey key = key(tenant, name);
        PoolState current = PoolState.fold(store.load(key));
        if (!current.defined()) {
            throw new NotFoundException("Pool", name);
        }
        VersionConflictException.requireVersion("Pool '" + name + "'", ifMatch, current.version(),
                () -> PoolView.of(name, current), sent);
        long version = store.append(key, current.version(), List.of(PoolEvents.deleted()), recordedBy);
        if (!projection.delete(tenant, name, current.version())) {
            throw new AggregateConflictException(key, current.version(), projection.version(tenant, name));
        }
        return version;
    }

    /** The pool as its events say, or 404. */
    @Transactional
    public PoolView get(String tenant, String name) {
        return find(tenant, name).orElseThrow(() -> new NotFoundException("Pool", name));
    }

    @Transactional
    public Optional<PoolView> find(String tenant, String name) {
        PoolState state = PoolState.fold(store.load(key(tenant, name)));
        return state.defined() ? Optional.of(PoolView.of(name, state)) : Optional.empty();
    }

    /**
     * The tenant's pools by name: names from the projection, each view folded from its stream (a tenant has few
     * pools, and the stream holds what the projection does not, such as when it was created).
     */
    @Transactional
    public List<PoolView> list(String tenant) {
        return projection.names(tenant).stream().map(name -> find(tenant, name)).flatMap(Optional::stream).toList();
    }

    /** The pool's stream, oldest first, or 404. */
    @Transactional
    public List<AggregateEvent> events(String tenant, String name) {
        List<AggregateEvent> events = store.load(key(tenant, name));
        if (events.isEmpty()) {
            throw new NotFoundException("Pool", name);
        }
        return events;
    }

    /**
     * The 409 for an edit that lost the race to append (its transaction already rolled back): the pool as it is
     * now, read afresh, beside what was sent.
     */
    public DuctorException lostRace(String tenant, String name, OptionalLong ifMatch, Object sent) {
        PoolView current = find(tenant, name).orElse(null);
        return conflict(name, ifMatch.isPresent() ? ifMatch.getAsLong() : null, current, sent);
    }

    static AggregateKey key(String tenant, String name) {
        return new AggregateKey(PoolEvents.AGGREGATE_TYPE, tenant, name);
    }

    /**
     * A refused edit, as a 409 with {@code current} and {@code rejected}. An editor who named a version gets the
     * usual version conflict; the two cases without one say in their own words what happened.
     */
    private static DuctorException conflict(String name, Long sentVersion, PoolView current, Object sent) {
        String what = "Pool '" + name + "'";
        if (sentVersion != null && current != null) {
            return new VersionConflictException(what, sentVersion, current.version(), current, sent);
        }
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("saved", false);
        extensions.put("expectedVersion", sentVersion);
        extensions.put("currentVersion", current == null ? null : current.version());
        extensions.put("current", current);
        extensions.put("rejected", sent);
        String message = current == null
                ? what + " does not exist, so If-Match: \"" + sentVersion + "\" matches nothing. Your change was NOT saved;"
                        + " to create the pool, send the PUT without If-Match."
                : what + " was created by someone else at the same time (it is now at version " + current.version()
                        + "). Your change was NOT saved; review the current pool and send your change again with If-Match: \""
                        + current.version() + "\".";
        return new ConflictException("version-conflict", message, extensions);
    }
}
