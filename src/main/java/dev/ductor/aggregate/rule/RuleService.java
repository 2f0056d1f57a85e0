package dev.ductor.aggregate.rule;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.AggregateConflictException;
import dev.ductor.aggregate.AggregateKey;
import dev.ductor.aggregate.AggregateStore;
import dev.ductor.aggregate.NamedAggregates;
import dev.ductor.aggregate.core.Rule;
import dev.ductor.aggregate.core.RuleState;
import dev.ductor.aggregate.core.RuleValidator;
import dev.ductor.aggregate.core.RuleViolationException;
import dev.ductor.config.JsonCodec;
import dev.ductor.error.NotFoundException;
import dev.ductor.error.VersionConflictException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import dev.ductor.queue.TierWeights;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.util.List;
import java.util.OptionalLong;

/**
 * Rules, event-sourced: the truth is the rule's stream in {@link AggregateStore} (type {@code rule}), one
 * {@code RuleDefined} event per create or replacement, appended at the version the editor read (If-Match).
 * In the same transaction the projection row in {@code eec_rule}, which incoming events are matched against,
 * is moved with {@code UPDATE ... WHERE db_record_version = <that version>}. Two editors on one version: one
 * append wins, the other raises {@link AggregateConflictException}, rolls back having written nothing, and the
 * API answers 409 with the rule as it now is.
 */
@ApplicationScoped
public class RuleService extends NamedAggregates<RuleView> {

    @Inject EntityManager em;
    @Inject JsonCodec json;
    @Inject Clock clock;
    @Inject TierWeights tiers;

    public RuleService() {
        super(RuleState.AGGREGATE_TYPE);
    }

    @Override
    @Transactional
    public Put<RuleView> put(String tenant, String name, JsonNode body, OptionalLong ifMatch, String recordedBy) {
        Rule rule;
        try {
            rule = RuleValidator.parse(tiers.tiers().names(), name, body);
        } catch (RuleViolationException invalid) {
            throw new InvalidRuleException(invalid.getMessage(), invalid.violations());
        }
        AggregateKey key = key(tenant, name);
        RuleState state = RuleState.fold(name, store.load(key));
        if (!state.exists()) {
            VersionConflictException.requireNoVersion("Rule '" + name + "'", ifMatch, body);
            long version = store.append(key, state.version(), List.of(RuleState.defined(rule)), recordedBy); // > 0 after a delete
            insertProjection(tenant, name, rule, version);
            return new Put<>(true, RuleView.of(load(key, name)));
        }
        VersionConflictException.requireVersion("Rule '" + name + "'", ifMatch, state.version(), () -> RuleView.of(state), body);
        long version = store.append(key, state.version(), List.of(RuleState.defined(rule)), recordedBy);
        moveProjection(key, rule, state.version(), version);
        return new Put<>(false, RuleView.of(load(key, name)));
    }

    /**
     * Deletes the rule at the version the caller read (If-Match is required): a {@code RuleDeleted} event and the
     * projection's row gone, in one transaction, so no event matches it any more. Returns the stream's version after
     * the delete.
     */
    @Transactional
    public long delete(String tenant, String name, OptionalLong ifMatch, String recordedBy, JsonNode sent) {
        AggregateKey key = key(tenant, name);
        RuleState state = load(key, name);
        if (!state.exists()) {
            throw new NotFoundException("Rule", name);
        }
        VersionConflictException.requireVersion("Rule '" + name + "'", ifMatch, state.version(), () -> RuleView.of(state), sent);
        long version = store.append(key, state.version(), List.of(RuleState.deleted()), recordedBy);
        int deleted = em.createNativeQuery("DELETE FROM eec_rule WHERE tenant = ?1 AND name = ?2 AND db_record_version = ?3")
                .setParameter(1, tenant)
                .setParameter(2, name)
                .setParameter(3, state.version())
                .executeUpdate();
        if (deleted != 1) {
            throw new AggregateConflictException(key, state.version(), store.version(key));
        }
        return version;
    }

    @Override
    @Transactional
    public RuleView get(String tenant, String name) {
        RuleState state = load(key(tenant, name), name);
        if (!state.exists()) {
            throw new NotFoundException("Rule", name);
        }
        return RuleView.of(state);
    }

    /** The tenant's rules by name (names from the projection, each view folded from its stream, like {@link #get}). */
    @Transactional
    @SuppressWarnings("unchecked")
    public List<RuleView> list(String tenant) {
        List<String> names = em.createNativeQuery("SELECT name FROM eec_rule WHERE tenant = ?1 ORDER BY name")
                .setParameter(1, tenant)
                .getResultList();
        return names.stream().map(name -> get(tenant, name)).toList();
    }

    /** The tenant's enabled rules on this event type, by name, from the projection (joins the caller's transaction). */
    @Transactional
    @SuppressWarnings("unchecked")
    public List<NamedRule> enabledRulesOn(String tenant, String eventType) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT name, CAST(definition AS text) FROM eec_rule
                         WHERE tenant = ?1 AND on_type = ?2 AND enabled ORDER BY name""")
                .setParameter(1, tenant)
                .setParameter(2, eventType)
                .getResultList();
        return rows.stream().map(r -> new NamedRule((String) r[0], Rule.fromJson(json.tree((String) r[1])))).toList();
    }

    private RuleState load(AggregateKey key, String name) {
        return RuleState.fold(name, store.load(key));
    }

    private void insertProjection(String tenant, String name, Rule rule, long version) {
        int inserted = em.createNativeQuery("""
                        INSERT INTO eec_rule (tenant, name, on_type, enabled, definition, db_record_version, updated_at)
                        VALUES (?1, ?2, ?3, ?4, CAST(?5 AS jsonb), ?6, ?7)
                        ON CONFLICT (tenant, name) DO NOTHING""")
                .setParameter(1, tenant)
                .setParameter(2, name)
                .setParameter(3, rule.on())
                .setParameter(4, rule.enabled())
                .setParameter(5, json.write(rule.toJson()))
                .setParameter(6, version)
                .setParameter(7, clock.instant())
                .executeUpdate();
        if (inserted == 0) {
            // The append at version 1 already decided who creates; a row here means the projection is ahead of its stream.
            throw new IllegalStateException("rule '" + name + "' of tenant " + tenant + " has a projection row but no events");
        }
    }

    private void moveProjection(AggregateKey key, Rule rule, long expected, long version) {
        int updated = em.createNativeQuery("""
                        UPDATE eec_rule SET on_type = ?3, enabled = ?4, definition = CAST(?5 AS jsonb), db_record_version = ?6,
                                            updated_at = ?7
                         WHERE tenant = ?1 AND name = ?2 AND db_record_version = ?8""")
                .setParameter(1, key.tenant())
                .setParameter(2, key.name())
                .setParameter(3, rule.on())
                .setParameter(4, rule.enabled())
                .setParameter(5, json.write(rule.toJson()))
                .setParameter(6, version)
                .setParameter(7, clock.instant())
                .setParameter(8, expected)
                .executeUpdate();
        if (updated != 1) {
            throw new AggregateConflictException(key, expected, store.version(key));
        }
    }
}
