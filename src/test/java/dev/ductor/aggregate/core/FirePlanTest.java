package dev.ductor.aggregate.core;

import dev.ductor.aggregate.core.FirePlan.CatchUp;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class FirePlanTest {

    private static final ZoneId UTC = ZoneOffset.UTC;
    private static final CronSchedule EVERY_MINUTE = CronSchedule.parse("0 * * * * ?", UTC);
    private static final CronSchedule EVERY_SECOND = CronSchedule.parse("* * * * * ?", UTC);
    private static final Duration THRESHOLD = Duration.ofSeconds(60);

    private static Instant t(String iso) {
        return Instant.parse(iso);
    }

    private static FirePlan plan(CronSchedule cron, String firedThrough, String now, CatchUp catchUp, int max) {
        return FirePlan.decide(cron, t(firedThrough), t(now), catchUp, false, max, THRESHOLD);
    }

    @Test
    void aFireTimeThatHasComeIsStartedOnceAndTheCursorMovesToIt() {
        FirePlan plan = plan(EVERY_MINUTE, "2025-06-02T10:00:00Z", "2025-06-02T10:01:00.300Z", CatchUp.NONE, 100);

        assertEquals(List.of(t("2025-06-02T10:01:00Z")), plan.fires());
        assertEquals(t("2025-06-02T10:01:00Z"), plan.firedThrough());
        assertEquals(Optional.of(t("2025-06-02T10:02:00Z")), plan.nextFireAt());
        assertFalse(plan.skipped());
    }

    @Test
    void aFireTimeExactlyAtNowIsDue() {
        assertEquals(List.of(t("2025-06-02T10:01:00Z")),
                plan(EVERY_MINUTE, "2025-06-02T10:00:00Z", "2025-06-02T10:01:00Z", CatchUp.NONE, 100).fires());
    }

    @Test
    void beforeTheNextFireTimeNothingIsStartedAndTheCursorStays() {
        FirePlan plan = plan(EVERY_MINUTE, "2025-06-02T10:01:00Z", "2025-06-02T10:01:59.999Z", CatchUp.ALL, 100);

        assertEquals(List.of(), plan.fires());
        assertEquals(t("2025-06-02T10:01:00Z"), plan.firedThrough());
        assertEquals(Optional.of(t("2025-06-02T10:02:00Z")), plan.nextFireAt());
    }

    @Test
    void aFireTimeAlreadyHandledIsNeverStartedAgain() {
        FirePlan plan = plan(EVERY_MINUTE, "2025-06-02T10:01:00Z", "2025-06-02T10:01:00.500Z", CatchUp.ALL, 100);

        assertEquals(List.of(), plan.fires());
    }

    @Test
    void fireTimesLateByLessThanTheThresholdAreNotMissedAndAllStartEvenWithCatchUpNone() {
        // A pod paused for 3 s (GC, a slow database): the three seconds are late, not missed.
        FirePlan plan = plan(EVERY_SECOND, "2025-06-02T10:00:00Z", "2025-06-02T10:00:03.100Z", CatchUp.NONE, 100);

        assertEquals(List.of(t("2025-06-02T10:00:01Z"), t("2025-06-02T10:00:02Z"), t("2025-06-02T10:00:03Z")), plan.fires());
        assertFalse(plan.skipped());
    }

    @Test
    void catchUpNoneSkipsEveryMissedFireAndGoesOnFromTheNextFutureOne() {
        // Every pod down from 10:00 to 13:00:30: 180 fire times missed.
        FirePlan plan = plan(EVERY_MINUTE, "2025-06-02T10:00:00Z", "2025-06-02T13:00:30Z", CatchUp.NONE, 100);

        assertEquals(List.of(t("2025-06-02T13:00:00Z")), plan.fires(), "13:00 is 30 s late: on time, not missed");
        assertTrue(plan.skipped());
        assertEquals(t("2025-06-02T13:00:00Z"), plan.firedThrough());
        assertEquals(Optional.of(t("2025-06-02T13:01:00Z")), plan.nextFireAt());
    }

    @Test
    void catchUpNoneWithEveryFireMissedStartsNothing() {
        FirePlan plan = plan(EVERY_MINUTE, "2025-06-02T10:00:00Z", "2025-06-02T13:00:45Z", CatchUp.NONE,
                100);
        FirePlan late = FirePlan.decide(EVERY_MINUTE, t("2025-06-02T10:00:00Z"), t("2025-06-02T13:00:45Z"), CatchUp.NONE, false,
                100, Duration.ofSeconds(10));

        assertEquals(1, plan.fires().size());
        assertEquals(List.of(), late.fires());
        assertTrue(late.skipped());
        assertEquals(t("2025-06-02T13:00:00Z"), late.firedThrough(), "the skipped fires are handled: never started later");
        assertEquals(Optional.of(t("2025-06-02T13:01:00Z")), late.nextFireAt());
    }

    @Test
    void catchUpLastStartsOnlyTheMostRecentMissedFire() {
        FirePlan plan = FirePlan.decide(EVERY_MINUTE, t("2025-06-02T10:00:00Z"), t("2025-06-02T13:00:45Z"), CatchUp.LAST, false,
                100, Duration.ofSeconds(10));

        assertEquals(List.of(t("2025-06-02T13:00:00Z")), plan.fires());
        assertTrue(plan.skipped());
    }

    @Test
    void catchUpLastStartsTheOnTimeFiresAndTheMostRecentMissedOne() {
        FirePlan plan = FirePlan.decide(EVERY_MINUTE, t("2025-06-02T10:00:00Z"), t("2025-06-02T13:02:05Z"), CatchUp.LAST, false,
                100, Duration.ofSeconds(90));

        assertEquals(List.of(t("2025-06-02T13:00:00Z"), t("2025-06-02T13:01:00Z"), t("2025-06-02T13:02:00Z")), plan.fires(),
                "13:01 and 13:02 are on time, 13:00 the most recent missed");
        assertTrue(plan.skipped());
    }

    @Test
    void catchUpAllStartsEveryMissedFireInOrder() {
        FirePlan plan = plan(EVERY_MINUTE, "2025-06-02T10:00:00Z", "2025-06-02T10:05:30Z", CatchUp.ALL, 100);

        assertEquals(List.of(t("2025-06-02T10:01:00Z"), t("2025-06-02T10:02:00Z"), t("2025-06-02T10:03:00Z"),
                t("2025-06-02T10:04:00Z"), t("2025-06-02T10:05:00Z")), plan.fires());
        assertFalse(plan.skipped());
        assertEquals(t("2025-06-02T10:05:00Z"), plan.firedThrough());
    }

    @Test
    void catchUpAllIsBoundedAndKeepsTheMostRecentFires() {
        // 180 missed, a bound of 100: the newest 100 start, the 80 before them are skipped for good.
        FirePlan plan = plan(EVERY_MINUTE, "2025-06-02T10:00:00Z", "2025-06-02T13:00:30Z", CatchUp.ALL, 100);

        assertEquals(100, plan.fires().size());
        assertEquals(t("2025-06-02T11:21:00Z"), plan.fires().get(0));
        assertEquals(t("2025-06-02T13:00:00Z"), plan.fires().get(99));
        assertTrue(plan.skipped());
        assertEquals(t("2025-06-02T13:00:00Z"), plan.firedThrough());
    }

    @Test
    void theBoundHoldsForOnTimeFiresToo() {
        FirePlan plan = plan(EVERY_SECOND, "2025-06-02T10:00:00Z", "2025-06-02T10:00:30Z", CatchUp.NONE, 10);

        assertEquals(10, plan.fires().size());
        assertEquals(t("2025-06-02T10:00:21Z"), plan.fires().get(0));
        assertTrue(plan.skipped());
    }

    @Test
    void aWeekDownWithAFireEverySecondLooksAtNoMoreThanTheBound() {
        long started = System.nanoTime();
        FirePlan plan = plan(EVERY_SECOND, "2025-06-02T10:00:00Z", "2025-06-09T10:00:00Z", CatchUp.ALL, 100);

        assertEquals(100, plan.fires().size());
        assertEquals(t("2025-06-09T10:00:00Z"), plan.fires().get(99));
        assertTrue(Duration.ofNanos(System.nanoTime() - started).toMillis() < 2_000, "walks back from now, not forward");
    }

    @Test
    void aPausedScheduleFiresNothingAndIsNotDue() {
        FirePlan plan = FirePlan.decide(EVERY_MINUTE, t("2025-06-02T10:00:00Z"), t("2025-06-02T13:00:30Z"), CatchUp.ALL, true,
                100, THRESHOLD);

        assertEquals(List.of(), plan.fires());
        assertEquals(t("2025-06-02T10:00:00Z"), plan.firedThrough());
        assertEquals(Optional.empty(), plan.nextFireAt());
    }

    @Test
    void theBoundMustBePositive() {
        assertThrows(IllegalArgumentException.class,
                () -> plan(EVERY_MINUTE, "2025-06-02T10:00:00Z", "2025-06-02T10:05:30Z", CatchUp.ALL, 0));
    }

    @Test
    void fireTimesFollowTheScheduleZoneAcrossTheSpringDaylightSavingChange() {
        // 09:00 every day in Amsterdam: 07:00 UTC in summer time, 08:00 UTC in winter time. Clocks went forward on 30 March.
        CronSchedule nine = CronSchedule.parse("0 0 9 * * ?", ZoneId.of("Europe/Amsterdam"));

        assertEquals(List.of(t("2025-03-29T08:00:00Z"), t("2025-03-30T07:00:00Z"), t("2025-03-31T07:00:00Z")),
                nine.nextTimes(t("2025-03-29T00:00:00Z"), 3));
        FirePlan plan = FirePlan.decide(nine, t("2025-03-28T08:00:00Z"), t("2025-03-31T07:00:10Z"), CatchUp.ALL, false, 100,
                THRESHOLD);
        assertEquals(List.of(t("2025-03-29T08:00:00Z"), t("2025-03-30T07:00:00Z"), t("2025-03-31T07:00:00Z")), plan.fires());
    }

    @Test
    void aWallTimeInTheSpringGapIsSkippedThatDayAndOneInTheAutumnOverlapFiresOnce() {
        // 02:30 does not exist in Amsterdam on 30 March 2025, and happens twice (CEST, then CET) on 26 October 2025.
        CronSchedule half = CronSchedule.parse("0 30 2 * * ?", ZoneId.of("Europe/Amsterdam"));

        assertEquals(List.of(t("2025-03-29T01:30:00Z"), t("2025-03-31T00:30:00Z")), half.nextTimes(t("2025-03-29T00:00:00Z"), 2));
        assertEquals(List.of(t("2025-10-25T00:30:00Z"), t("2025-10-26T00:30:00Z"), t("2025-10-27T01:30:00Z")),
                half.nextTimes(t("2025-10-25T00:00:00Z"), 3));
        // A pass just after the second 02:30 of the overlap, with the first one fired: nothing is due.
        FirePlan second = FirePlan.decide(half, t("2025-10-26T00:30:00Z"), t("2025-10-26T01:30:00.200Z"), CatchUp.ALL, false, 100,
                THRESHOLD);
        assertEquals(List.of(), second.fires());
        assertEquals(Optional.of(t("2025-10-27T01:30:00Z")), second.nextFireAt());
        // Catching up across both changes: one fire a day, none on the day of the gap.
        FirePlan catchUp = FirePlan.decide(half, t("2025-03-28T12:00:00Z"), t("2025-03-31T00:30:05Z"), CatchUp.ALL, false, 100,
                THRESHOLD);
        assertEquals(List.of(t("2025-03-29T01:30:00Z"), t("2025-03-31T00:30:00Z")), catchUp.fires());
        FirePlan autumn = FirePlan.decide(half, t("2025-10-25T12:00:00Z"), t("2025-10-27T01:30:05Z"), CatchUp.ALL, false, 100,
                THRESHOLD);
        assertEquals(List.of(t("2025-10-26T00:30:00Z"), t("2025-10-27T01:30:00Z")), autumn.fires());
    }

    @Test
    void fireTimesAreWholeSecondsWhateverTheCursorsFraction() {
        assertEquals(List.of(t("2025-06-02T10:00:01Z"), t("2025-06-02T10:00:02Z")),
                EVERY_SECOND.nextTimes(t("2025-06-02T10:00:00.549639Z"), 2));
        assertEquals(Optional.of(t("2025-06-02T10:00:00Z")), EVERY_SECOND.previous(t("2025-06-02T10:00:00.549639Z")));
        assertEquals(List.of(t("2025-06-02T10:00:01Z"), t("2025-06-02T10:00:02Z")),
                plan(EVERY_SECOND, "2025-06-02T10:00:00.549639Z", "2025-06-02T10:00:02.3Z", CatchUp.NONE, 100).fires());
    }

    @Test
    void quartzExpressionsAreReadSecondsFirstAndUnixOnesAreRefused() {
        assertEquals(List.of(t("2025-06-02T10:05:00Z"), t("2025-06-02T10:10:00Z")),
                CronSchedule.parse("0 */5 * * * ?", UTC).nextTimes(t("2025-06-02T10:03:00Z"), 2));
        assertThrows(IllegalArgumentException.class, () -> CronSchedule.parse("*/5 * * * *", UTC));
        assertThrows(IllegalArgumentException.class, () -> CronSchedule.parse("not a cron", UTC));
    }
}
