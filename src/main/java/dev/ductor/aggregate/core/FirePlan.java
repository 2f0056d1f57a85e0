package dev.ductor.aggregate.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pure decision of a schedule's pass: given the fire times already handled (every one up to {@code firedThrough})
 * and the database's {@code now}, which fire times to start runs for, and where the schedule then stands.
 *
 * <p>A fire time is <em>on time</em> while it is at most {@code misfireThreshold} old (a pass runs every second, so
 * this is the usual case) and <em>missed</em> when older: every pod was down, or the database was. On-time fires
 * are always started; missed ones follow {@code catchUp}: {@code none} skips them all, {@code last} starts the most
 * recent of them, {@code all} starts each. In every case at most {@code maxCatchUp} fires are started in one pass,
 * the most recent ones; the rest are skipped. Either way every fire time up to {@code now} counts as handled
 * afterwards ({@link #firedThrough}), so a skipped fire is never started later.
 *
 * @param fires        the fire times to start runs for, oldest first
 * @param skipped      whether fire times were skipped (missed, or past the bound)
 * @param firedThrough the new cursor: the latest fire time at or before {@code now}, or the old cursor if none is newer
 * @param nextFireAt   the first fire time after the new cursor; empty when the expression never fires again (or the
 *                     schedule is paused)
 */
public record FirePlan(List<Instant> fires, boolean skipped, Instant firedThrough, Optional<Instant> nextFireAt) {

    public enum CatchUp { NONE, LAST, ALL }

    public static FirePlan decide(CronSchedule cron, Instant firedThrough, Instant now, CatchUp catchUp, boolean paused,
                                  int maxCatchUp, Duration misfireThreshold) {
        if (maxCatchUp < 1) {
            throw new IllegalArgumentException("maxCatchUp must be at least 1, not " + maxCatchUp);
        }
        if (paused) {
            return new FirePlan(List.of(), false, firedThrough, Optional.empty());
        }
        Optional<Instant> first = cron.next(firedThrough);
        if (first.isEmpty() || first.get().isAfter(now)) {
            return new FirePlan(List.of(), false, firedThrough, first);
        }
        Instant onTimeFrom = now.minus(misfireThreshold);
        // Newest first, walking back no further than needed, to find the oldest fire time to start: a schedule firing
        // every second that was down for a week has 600,000 missed fires, and only the bound's worth are looked at.
        Instant oldest = null;
        int taken = 0;
        boolean skipped = false;
        boolean missedTaken = false;
        Optional<Instant> at = cron.previous(now);
        while (at.isPresent() && !at.get().isBefore(first.get())) {
            Instant fire = at.get();
            boolean onTime = !fire.isBefore(onTimeFrom);
            if (taken >= maxCatchUp || !(onTime || catchUp == CatchUp.ALL || (catchUp == CatchUp.LAST && !missedTaken))) {
                skipped = true;
                break; // everything older is missed too, and not taken
            }
            oldest = fire;
            taken++;
            missedTaken |= !onTime;
            at = cron.previous(fire.minusNanos(1));
        }
        if (oldest == null && !skipped) {
            oldest = first.get(); // the walk back saw nothing at or after the first fire time due: start from it
        }
        Instant latest = cron.previous(now).filter(t -> t.isAfter(first.get())).orElse(first.get());
        if (oldest == null) {
            return new FirePlan(List.of(), skipped, latest, cron.next(latest));
        }
        // Then forward from there, the way next_fire_at is computed, so that a wall time the zone's clocks pass twice
        // (the autumn change) is one fire time in both directions.
        List<Instant> chosen = new ArrayList<>();
        for (Optional<Instant> fire = Optional.of(oldest); fire.isPresent() && !fire.get().isAfter(now); fire = cron.next(fire.get())) {
            chosen.add(fire.get());
        }
        latest = chosen.get(chosen.size() - 1);
        if (chosen.size() > maxCatchUp) {
            chosen = chosen.subList(chosen.size() - maxCatchUp, chosen.size());
            skipped = true;
        }
        return new FirePlan(List.copyOf(chosen), skipped, latest, cron.next(latest));
    }
}
