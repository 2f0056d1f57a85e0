package dev.ductor.aggregate.rule;

import dev.ductor.config.SqlTimestamps;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.core.Rule;
import dev.ductor.aggregate.core.RuleMatcher;
import dev.ductor.aggregate.core.RuleTemplate;
import dev.ductor.config.JsonCodec;
import dev.ductor.error.IdempotencyKeyReusedException;
import dev.ductor.run.command.RunOperations;
import dev.ductor.run.read.RunQueries;
import dev.ductor.run.commit.RunStarter;
import dev.ductor.workflow.WorkflowService;
import dev.ductor.run.commit.StartRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Takes in one event and applies the tenant's matching rules, all in one transaction:
 * <ol>
 *   <li>the event is inserted under {@code UNIQUE (tenant, idempotency_key)} with {@code ON CONFLICT DO NOTHING}.
 *       A repeat, or a concurrent twin, waits on that key until the first delivery commits, inserts nothing and
 *       answers the outcome the first one stored: nothing runs twice, nothing is decided by a read-then-insert. A
 *       repeat whose type, key or payload differ from the first delivery's (its request fingerprint) is refused;</li>
 *   <li>the rules on the event's type come from the {@code eec_rule} projection and are matched in name order
 *       ({@link RuleMatcher});</li>
 *   <li>a {@code start} rule starts its workflow with the run idempotency key {@code event:<idempotencyKey>:<rule>}
 *       and the event's key as the run's correlation key; a {@code signal} rule signals every RUNNING run whose
 *       correlation key is the event's key, with the signal idempotency key {@code event:<idempotencyKey>:<rule>}.
 *       Both keys are derived, so even if two deliveries got past step 1 they could not start or signal twice;</li>
 *   <li>the outcome is stored with the event.</li>
 * </ol>
 * A rule that matches but cannot act (its workflow does not exist, no run is correlated, a correlated run's revision
 * declares no such signal) is reported as skipped, once per run where it is about a run, not failed: the event is
 * still accepted.
 */
@ApplicationScoped
public class EventIngestion {

    @Inject EntityManager em;
    @Inject RuleService rules;
    @Inject RunStarter starter;
    @Inject RunOperations operations;
    @Inject RunQueries runs;
    @Inject WorkflowService workflows;
    @Inject JsonCodec json;
    @Inject Clock clock;

    /** Run and signal idempotency keys with this prefix are the rules' own; clients cannot choose them. */
    public static final String DERIVED_KEY_PREFIX = "event:";

    /** The key under which a rule acts on an event: the same event and rule always give the same key. */
    public static String derivedKey(String eventIdempotencyKey, String rule) {
        return DERIVED_KEY_PREFIX + eventIdempotencyKey + ":" + rule;
    }

    @Transactional
    public EventReceipt ingest(String tenant, IncomingEvent event) {
        Instant now = clock.instant();
        UUID eventId = UUID.randomUUID();
        int inserted = em.createNativeQuery("""
                        INSERT INTO eec_event (event_id, tenant, idempotency_key, event_type, event_key, payload, received_at,
                                               request_fingerprint)
                        VALUES (?1, ?2, ?3, ?4, ?5, CAST(?6 AS jsonb), ?7, ?8)
                        ON CONFLICT (tenant, idempotency_key) DO NOTHING""")
                .setParameter(1, eventId)
                .setParameter(2, tenant)
                .setParameter(3, event.idempotencyKey())
                .setParameter(4, event.type())
                .setParameter(5, event.key())
                .setParameter(6, json.write(event.payload()))
                .setParameter(7, now)
                .setParameter(8, event.fingerprint())
                .executeUpdate();
        if (inserted == 0) {
            return stored(tenant, event);
        }
        List<EventReceipt.StartedRun> started = new ArrayList<>();
        List<EventReceipt.SignalledRun> signalled = new ArrayList<>();
        List<EventReceipt.SkippedRule> skipped = new ArrayList<>();
        for (NamedRule named : rules.enabledRulesOn(tenant, event.type())) {
            Rule rule = named.rule();
            if (!RuleMatcher.matches(rule, event.type(), event.payload())) {
                continue;
            }
            String key = derivedKey(event.idempotencyKey(), named.name());
            if (rule.start() != null) {
                start(tenant, event, named.name(), rule.start(), key, started, skipped);
            } else {
                signal(tenant, event, named.name(), rule.signal(), key, signalled, skipped);
            }
        }
        EventReceipt.Outcome outcome = new EventReceipt.Outcome(started, signalled, skipped);
        int recorded = em.createNativeQuery("UPDATE eec_event SET outcome = CAST(?1 AS jsonb) WHERE event_id = ?2 AND outcome IS NULL")
                .setParameter(1, json.write(outcome))
                .setParameter(2, eventId)
                .executeUpdate();
        if (recorded != 1) {
            throw new IllegalStateException("event " + eventId + " was inserted by this transaction but its outcome could not be recorded");
        }
        return new EventReceipt(eventId, event.type(), event.key(), false, now, started, signalled, skipped);
    }

    private void start(String tenant, IncomingEvent event, String ruleName, Rule.Start start, String key,
                       List<EventReceipt.StartedRun> started, List<EventReceipt.SkippedRule> skipped) {
        // Checked here because a missing workflow thrown from the starter would roll back the whole event.
        if (!workflows.exists(tenant, start.workflow())) {
            skipped.add(new EventReceipt.SkippedRule(ruleName, "workflow '" + start.workflow() + "' does not exist"));
            return;
        }
        JsonNode input = nullIfJsonNull(RuleTemplate.render(start.input(), event.type(), event.key(), event.payload()));
        RunStarter.Started run = starter.start(tenant, start.workflow(), new StartRequest(input, key, start.tier(), event.key()));
        started.add(new EventReceipt.StartedRun(ruleName, start.workflow(), run.run().runId()));
    }

    private void signal(String tenant, IncomingEvent event, String ruleName, Rule.Signal signal, String key,
                        List<EventReceipt.SignalledRun> signalled, List<EventReceipt.SkippedRule> skipped) {
        if (event.key() == null) {
            skipped.add(new EventReceipt.SkippedRule(ruleName, "the event has no key, so no run is correlated with it"));
            return;
        }
        JsonNode payload = nullIfJsonNull(RuleTemplate.render(signal.payload(), event.type(), event.key(), event.payload()));
        int before = signalled.size();
        boolean undeclared = false;
        for (UUID runId : runs.runningByCorrelation(tenant, event.key())) {
            RunOperations.SignalOutcome outcome = operations.signalIfRunning(tenant, runId, signal.name(), payload, key);
            if (outcome == RunOperations.SignalOutcome.UNDECLARED) {
                // Reported per run rather than dropped in silence: the rule and the run's workflow disagree on a name.
                undeclared = true;
                skipped.add(new EventReceipt.SkippedRule(ruleName, operations.undeclared(tenant, runId, signal.name()).getMessage()));
            } else if (outcome != RunOperations.SignalOutcome.NOT_RUNNING) {
                signalled.add(new EventReceipt.SignalledRun(ruleName, runId));
            }
        }
        if (signalled.size() == before && !undeclared) {
            skipped.add(new EventReceipt.SkippedRule(ruleName, "no running run has the correlation key '" + event.key() + "'"));
        }
    }

    private EventReceipt stored(String tenant, IncomingEvent event) {
        Object[] row = (Object[]) em.createNativeQuery("""
                        SELECT event_id, event_type, event_key, CAST(outcome AS text), received_at, request_fingerprint
                          FROM eec_event WHERE tenant = ?1 AND idempotency_key = ?2""")
                .setParameter(1, tenant)
                .setParameter(2, event.idempotencyKey())
                .getSingleResult();
        // An event stored before fingerprints were has none: its key can only be answered as a repeat.
        if (row[5] != null && !row[5].equals(event.fingerprint())) {
            throw new IdempotencyKeyReusedException(event.idempotencyKey(), "an event of type '" + row[1] + "'");
        }
        EventReceipt.Outcome outcome = row[3] == null
                ? new EventReceipt.Outcome(List.of(), List.of(), List.of())
                : read((String) row[3]);
        UUID eventId = row[0] instanceof UUID uuid ? uuid : UUID.fromString(row[0].toString());
        return new EventReceipt(eventId, (String) row[1], (String) row[2], true, SqlTimestamps.toInstant(row[4]),
                outcome.started(), outcome.signalled(), outcome.skipped());
    }

    private EventReceipt.Outcome read(String outcome) {
        try {
            return json.mapper().readValue(outcome, EventReceipt.Outcome.class);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException("stored event outcome is unreadable", e);
        }
    }

    private static JsonNode nullIfJsonNull(JsonNode node) {
        return node == null || node.isNull() ? null : node;
    }

}
