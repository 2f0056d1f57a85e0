package dev.ductor.aggregate.core;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A cron expression read the way Quarkus' scheduler reads one (cron-utils, {@link CronType#QUARTZ}: seconds first,
 * {@code 0 *&#47;5 * * * ?}), evaluated in a time zone. Fire times are whole seconds. Pure and immutable.
 */
public final class CronSchedule {

    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ));

    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime execution;

    private CronSchedule(String expression, ZoneId zone, ExecutionTime execution) {
        this.expression = expression;
        this.zone = zone;
        this.execution = execution;
    }

    /** @throws IllegalArgumentException saying what is wrong with the expression */
    public static CronSchedule parse(String expression, ZoneId zone) {
        try {
            return new CronSchedule(expression, zone, ExecutionTime.forCron(PARSER.parse(expression).validate()));
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
            throw new IllegalArgumentException(e.getMessage() == null ? "not a Quartz cron expression" : e.getMessage(), e);
        }
    }

    public String expression() {
        return expression;
    }

    public ZoneId zone() {
        return zone;
    }

    /** The first fire time strictly after {@code after}, if the expression fires again at all. */
    public Optional<Instant> next(Instant after) {
        // cron-utils keeps the fraction of the second it is given: hand it whole seconds, so fire times are whole too.
        return execution.nextExecution(ZonedDateTime.ofInstant(after.truncatedTo(ChronoUnit.SECONDS), zone))
                .map(next -> next.toInstant().truncatedTo(ChronoUnit.SECONDS)).filter(next -> next.isAfter(after));
    }

    /** The last fire time at or before {@code atOrBefore}, if there was one. */
    public Optional<Instant> previous(Instant atOrBefore) {
        // cron-utils answers the last fire strictly before the time it is given: ask at the next whole second.
        Instant probe = atOrBefore.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        return execution.lastExecution(ZonedDateTime.ofInstant(probe, zone))
                .map(previous -> previous.toInstant().truncatedTo(ChronoUnit.SECONDS)).filter(previous -> !previous.isAfter(atOrBefore));
    }

    /** Up to {@code count} fire times strictly after {@code after}, in order. */
    public List<Instant> nextTimes(Instant after, int count) {
        List<Instant> times = new ArrayList<>(count);
        Instant at = after;
        for (int i = 0; i < count; i++) {
            Optional<Instant> next = next(at);
            if (next.isEmpty()) {
                break;
            }
            times.add(next.get());
            at = next.get();
        }
        return times;
    }
}
