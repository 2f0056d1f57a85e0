package dev.ductor.aggregate.schedule;

import dev.ductor.aggregate.core.FirePlan;
import dev.ductor.aggregate.core.RuleValidator;
import dev.ductor.aggregate.core.Schedule;
import dev.ductor.config.DuctorConfig;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.error.DuctorException;
import dev.ductor.run.command.RunOperations;
import dev.ductor.run.read.RunQueries;
import dev.ductor.run.commit.RunStarter;
import dev.ductor.run.commit.StartRequest;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The scheduler: turns schedules' fire times into runs. The {@code @Scheduled} trigger only calls {@link #runOnce}; every
 * pod runs it, and none needs to be the leader. A pass reads the due schedules ({@code next_fire_at <= now}, by the
 * database's clock), lets {@link FirePlan} decide which fire times to start, and then, per schedule in a transaction of
 * its own, claims them by moving the schedule's cursor with a conditional update ({@link ScheduleProjection#advance})
 * and starts their runs in the same transaction. Two pods on one fire time: one update wins, the other matches no row
 * and starts nothing; a pass that fails midway rolls its cursor back with its runs. Each run's idempotency key is
 * {@code schedule:<name>:<fire time>} besides, so a start can never be doubled whatever happens to the cursor.
 */
@ApplicationScoped
public class ScheduleFirer {

    private static final Logger LOG = Logger.getLogger(ScheduleFirer.class);

    @Inject ScheduleProjection projection;
    @Inject RunStarter starter;
    @Inject RunQueries runs;
    @Inject RunOperations operations;
    @Inject DuctorConfig config;
    @Inject Clock clock;

    /** What one pass did: the runs it started, and how many fire times it let go (overlapping a running run). */
    public record Pass(List<Fired> started, int skipped) {
    }

    /** A run a pass started: for which schedule and fire time. */
    public record Fired(String tenant, String schedule, Instant fireTime, UUID runId) {
    }

    /** The idempotency key of the run a schedule starts at {@code fire}: the same on every pod. */
    public static String idempotencyKey(String schedule, Instant fire) {
        return "schedule:" + schedule + ":" + fire;
    }

    @Scheduled(every = "${ductor.schedules.interval:1s}", delayed = "${ductor.schedules.interval:1s}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void trigger() {
        if (config.schedules().enabled()) {
            try {
                runOnce(clock.instant());
            } catch (RuntimeException e) {
                if (!DatabaseOutage.isOutage(e)) {
                    throw e;
                }
                LOG.debugf("scheduler pass skipped, the database is unreachable: %s", e.getMessage());
            }
        }
    }

    /** One pass as of {@code now} (the database's clock). */
    public Pass runOnce(Instant now) {
        Instant at = now.truncatedTo(ChronoUnit.MICROS);
        List<ScheduleProjection.Due> due = QuarkusTransaction.requiringNew()
                .call(() -> projection.due(at, config.schedules().batchSize()));
        List<Fired> started = new ArrayList<>();
        int skipped = 0;
        for (ScheduleProjection.Due schedule : due) {
            try {
                Pass pass = QuarkusTransaction.requiringNew().call(() -> fire(schedule, at));
                started.addAll(pass.started());
                skipped += pass.skipped();
            } catch (RuntimeException e) {
                if (DatabaseOutage.isOutage(e)) {
                    throw e; // every other schedule would fail the same way; the next pass starts afresh
                }
                LOG.warnf(e, "schedule '%s' of tenant %s could not fire (nothing of this pass over it was saved; the next"
                        + " pass tries again)", schedule.name(), schedule.tenant());
            }
        }
        return new Pass(List.copyOf(started), skipped);
    }

    private Pass fire(ScheduleProjection.Due due, Instant now) {
        Schedule schedule = due.schedule();
        FirePlan plan = FirePlan.decide(schedule.cronSchedule(), due.firedThrough(), now, schedule.catchUp(), schedule.paused(),
                config.schedules().maxCatchUp(), config.schedules().misfireThreshold());
        if (!projection.advance(due, plan.firedThrough(), plan.nextFireAt().orElse(null))) {
            return new Pass(List.of(), 0); // another pod's pass, or an edit, came first
        }
        if (plan.skipped()) {
            LOG.infof("schedule '%s' of tenant %s: fire times up to %s were missed or past ductor.schedules.max-catch-up"
                    + " and are skipped (catchUp: %s); %d started", due.name(), due.tenant(), plan.firedThrough(),
                    Schedule.wire(schedule.catchUp()), plan.fires().size());
        }
        UUID lastRun = due.lastRunId();
        Instant lastFire = null;
        String lastError = null;
        List<Fired> started = new ArrayList<>();
        int skipped = 0;
        for (Instant fire : plan.fires()) {
            if (lastRun != null && schedule.overlap() != Schedule.Overlap.ALLOW
                    && runs.status(due.tenant(), lastRun).filter("RUNNING"::equals).isPresent()) {
                if (schedule.overlap() == Schedule.Overlap.SKIP) {
                    skipped++;
                    continue;
                }
                try {
                    operations.cancel(due.tenant(), lastRun, "schedule '" + due.name() + "' fired again at " + fire
                            + " (overlap: cancelPrevious)");
                } catch (DuctorException finished) {
                    // it finished meanwhile: nothing to cancel
                }
            }
            RunStarter.Result result = starter.startAll(List.of(new RunStarter.Request(due.tenant(), schedule.workflow(),
                    new StartRequest(schedule.input(), idempotencyKey(due.name(), fire), RuleValidator.DEFAULT_TIER)))).get(0);
            if (result.refused() != null) {
                lastError = "the run of " + fire + " was not started: " + result.refused().getMessage();
                LOG.warnf("schedule '%s' of tenant %s: %s", due.name(), due.tenant(), lastError);
                continue;
            }
            lastRun = result.started().run().runId();
            lastFire = fire;
            lastError = null;
            started.add(new Fired(due.tenant(), due.name(), fire, lastRun));
        }
        if (lastFire != null || lastError != null) {
            projection.recordFires(due, plan.firedThrough(), lastFire, lastRun, lastError);
        }
        return new Pass(List.copyOf(started), skipped);
    }
}
