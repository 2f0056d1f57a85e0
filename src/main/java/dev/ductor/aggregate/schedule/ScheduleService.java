package dev.ductor.aggregate.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.AggregateConflictException;
import dev.ductor.aggregate.AggregateKey;
import dev.ductor.aggregate.AggregateStore;
import dev.ductor.aggregate.NamedAggregates;
import dev.ductor.aggregate.core.CronSchedule;
import dev.ductor.aggregate.core.Schedule;
import dev.ductor.aggregate.core.ScheduleState;
import dev.ductor.aggregate.core.ScheduleValidator;
import dev.ductor.aggregate.core.ScheduleViolation;
import dev.ductor.aggregate.core.ScheduleViolationException;
import dev.ductor.error.NotFoundException;
import dev.ductor.error.VersionConflictException;
import dev.ductor.workflow.WorkflowService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Schedules, event-sourced like rules: the truth is the schedule's stream in {@link AggregateStore} (type
 * {@code schedule}), one {@code ScheduleDefined} event per create or replacement, appended at the version the editor
 * read (If-Match). In the same transaction the {@code eec_schedule} row the scheduler reads is moved from that version.
 * A new schedule starts its clock at the database's now: fire times before its creation are not missed, they never
 * were; so does a resume, or a new cron or time zone ({@link ScheduleState#restartsClock}).
 */
@ApplicationScoped
public class ScheduleService extends NamedAggregates<ScheduleView> {

    /** How many next fire times a GET shows. */
    public static final int NEXT_FIRE_TIMES = 5;

    @Inject ScheduleProjection projection;
    @Inject WorkflowService workflows;
    @Inject Clock clock;

    public ScheduleService() {
        super(ScheduleState.AGGREGATE_TYPE);
    }

    @Override
    @Transactional
    public Put<ScheduleView> put(String tenant, String name, JsonNode body, OptionalLong ifMatch, String recordedBy) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Schedule schedule;
        try {
            schedule = ScheduleValidator.parse(name, body, now);
        } catch (ScheduleViolationException invalid) {
            throw new InvalidScheduleException(invalid.getMessage(), invalid.violations());
        }
        if (workflows.currentIfAny(tenant, schedule.workflow()).isEmpty()) {
            throw new InvalidScheduleException("workflow: no workflow '" + schedule.workflow() + "' is defined",
                    List.of(new ScheduleViolation("workflow", "no workflow '" + schedule.workflow()
                            + "' is defined: PUT /api/v1/workflows/" + schedule.workflow() + " first")));
        }
        AggregateKey key = key(tenant, name);
        ScheduleState state = ScheduleState.fold(name, store.load(key));
        CronSchedule cron = schedule.cronSchedule();
        if (!state.exists()) {
            VersionConflictException.requireNoVersion("Schedule '" + name + "'", ifMatch, body);
            long version = store.append(key, 0, List.of(ScheduleState.defined(schedule)), recordedBy);
            if (!projection.insert(tenant, name, schedule, version, now, now, next(cron, schedule, now))) {
                // The append at version 1 already decided who creates; a row here means the projection is ahead of its stream.
                throw new IllegalStateException("schedule '" + name + "' of tenant " + tenant + " has a projection row but no events");
            }
            return new Put<>(true, get(tenant, name));
        }
        VersionConflictException.requireVersion("Schedule '" + name + "'", ifMatch, state.version(), () -> view(tenant, state),
                body);
        long version = store.append(key, state.version(), List.of(ScheduleState.defined(schedule)), recordedBy);
        // Locked, so a pass that read the old cursor cannot move it under this decision (its conditional update waits,
        // then finds the version moved, and leaves the schedule to the next pass).
        ScheduleProjection.Firing firing = projection.lockFiring(tenant, name)
                .orElseThrow(() -> new AggregateConflictException(key, state.version(), 0));
        Instant firedThrough = ScheduleState.restartsClock(state.schedule(), schedule) && now.isAfter(firing.firedThrough())
                ? now : firing.firedThrough();
        if (!projection.update(tenant, name, state.version(), schedule, version, now, firedThrough, next(cron, schedule, firedThrough))) {
            throw new AggregateConflictException(key, state.version(), projection.version(tenant, name));
        }
        return new Put<>(false, get(tenant, name));
    }

    @Override
    @Transactional
    public ScheduleView get(String tenant, String name) {
        ScheduleState state = ScheduleState.fold(name, store.load(key(tenant, name)));
        if (!state.exists()) {
            throw new NotFoundException("Schedule", name);
        }
        return view(tenant, state);
    }

    /** The tenant's schedules by name (names from the projection, each view folded from its stream, like {@link #get}). */
    @Transactional
    public List<ScheduleView> list(String tenant) {
        return projection.names(tenant).stream().map(name -> get(tenant, name)).toList();
    }

    private ScheduleView view(String tenant, ScheduleState state) {
        Optional<ScheduleProjection.Firing> firing = projection.firing(tenant, state.name());
        Schedule schedule = state.schedule();
        List<ScheduleView.FireTime> next = List.of();
        if (!schedule.paused()) {
            Instant now = clock.instant();
            Instant from = firing.map(ScheduleProjection.Firing::firedThrough).filter(now::isBefore).orElse(now);
            CronSchedule cron = schedule.cronSchedule();
            next = cron.nextTimes(from, NEXT_FIRE_TIMES).stream()
                    .map(t -> new ScheduleView.FireTime(t.atZone(cron.zone()).toOffsetDateTime().toString(), t)).toList();
        }
        ScheduleView.LastFire last = firing.filter(f -> f.lastFireAt() != null || f.lastError() != null)
                .map(f -> new ScheduleView.LastFire(f.lastFireAt(), f.lastRunId(), f.lastError())).orElse(null);
        return ScheduleView.of(state, next, last);
    }

    private static Instant next(CronSchedule cron, Schedule schedule, Instant after) {
        return schedule.paused() ? null : cron.next(after).orElse(null);
    }
}
