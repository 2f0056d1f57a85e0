package dev.ductor.aggregate.schedule;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.core.Schedule;
import dev.ductor.aggregate.core.ScheduleState;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A schedule as the API shows it: its normalised definition (defaults filled in), {@code version} (its event-stream
 * version, also the ETag), the next fire times in its time zone and in UTC (none while paused), and what its last fire
 * did. A client may PUT this document back with its changes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"name", "cron", "timezone", "workflow", "input", "overlap", "catchUp", "paused", "version", "nextFireTimes",
        "lastFire", "createdAt", "updatedAt", "updatedBy"})
@RegisterForReflection
public record ScheduleView(String name, String cron, String timezone, String workflow, JsonNode input, String overlap,
                           String catchUp, boolean paused, long version, List<FireTime> nextFireTimes, LastFire lastFire,
                           Instant createdAt, Instant updatedAt, String updatedBy) {

    /** A fire time, as the schedule's zone reads it ({@code 2025-06-02T09:05+02:00}) and in UTC. */
    @RegisterForReflection
    public record FireTime(String local, Instant utc) {
    }

    /** The last fire that started a run (its fire time and run), and the last start that was refused, if any. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @RegisterForReflection
    public record LastFire(Instant at, UUID runId, String error) {
    }

    static ScheduleView of(ScheduleState state, List<FireTime> next, LastFire lastFire) {
        Schedule s = state.schedule();
        return new ScheduleView(state.name(), s.cron(), s.timezone(), s.workflow(), s.input(), s.overlap().wire,
                Schedule.wire(s.catchUp()), s.paused(), state.version(), next, lastFire, state.createdAt(), state.updatedAt(),
                state.updatedBy());
    }
}
