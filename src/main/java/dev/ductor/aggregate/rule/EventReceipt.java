package dev.ductor.aggregate.rule;

import io.quarkus.runtime.annotations.RegisterForReflection;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * What an event did, as {@code POST /events} answers it: the runs its rules started and signalled, and the
 * matching rules that could do nothing (with why). A re-sent event answers the first delivery's receipt with
 * {@code duplicate: true}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"eventId", "type", "key", "duplicate", "receivedAt", "started", "signalled", "skipped"})
@RegisterForReflection
public record EventReceipt(UUID eventId, String type, String key, boolean duplicate, Instant receivedAt,
                           List<StartedRun> started, List<SignalledRun> signalled, List<SkippedRule> skipped) {

    @RegisterForReflection
    public record StartedRun(String rule, String workflow, UUID runId) {
    }

    @RegisterForReflection
    public record SignalledRun(String rule, UUID runId) {
    }

    @RegisterForReflection
    public record SkippedRule(String rule, String reason) {
    }

    /** The part kept with the event, to answer repeats. */
    @RegisterForReflection
    public record Outcome(List<StartedRun> started, List<SignalledRun> signalled, List<SkippedRule> skipped) {
    }
}
