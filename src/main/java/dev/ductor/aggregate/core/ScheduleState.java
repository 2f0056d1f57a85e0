package dev.ductor.aggregate.core;

import java.time.Instant;
import java.util.List;

/**
 * A schedule as its event stream says it is now. Like a rule's, the stream has one kind of event, {@value #DEFINED},
 * whose payload is the whole normalised schedule ({@link Schedule#toJson}); the last one wins (pausing is a replacement
 * with {@code "paused": true}). {@link #version} is the stream's version, 0 for a schedule that does not exist; it is
 * the schedule's ETag.
 */
public record ScheduleState(String name, Schedule schedule, long version, Instant createdAt, Instant updatedAt, String updatedBy) {

    public static final String AGGREGATE_TYPE = "schedule";
    public static final String DEFINED = "ScheduleDefined";

    public static ScheduleState initial(String name) {
        return new ScheduleState(name, null, 0, null, null, null);
    }

    public static ScheduleState fold(String name, List<AggregateEvent> events) {
        ScheduleState state = initial(name);
        for (AggregateEvent event : events) {
            state = state.apply(event);
        }
        return state;
    }

    public boolean exists() {
        return schedule != null;
    }

    /** The state after {@code event}, which must be the stream's next one. */
    public ScheduleState apply(AggregateEvent event) {
        if (event.version() != version + 1) {
            throw new IllegalStateException("schedule '" + name + "': event version " + event.version() + " does not follow "
                    + version);
        }
        if (!DEFINED.equals(event.type())) {
            throw new IllegalStateException("schedule '" + name + "': unknown event type '" + event.type() + "'");
        }
        return new ScheduleState(name, Schedule.fromJson(event.payload()), event.version(),
                createdAt == null ? event.recordedAt() : createdAt, event.recordedAt(), event.recordedBy());
    }

    /** The event that makes {@code schedule} the schedule's definition, whether it exists yet or not. */
    public static NewEvent defined(Schedule schedule) {
        return new NewEvent(DEFINED, schedule.toJson());
    }

    /**
     * Whether a change from {@code before} to {@code after} restarts the schedule's clock at "now": a resume (fires while
     * paused are not caught up) or a new cron or time zone (the old expression's missed fires are not the new one's).
     */
    public static boolean restartsClock(Schedule before, Schedule after) {
        return (before.paused() && !after.paused()) || !before.cron().equals(after.cron())
                || !before.timezone().equals(after.timezone());
    }
}
