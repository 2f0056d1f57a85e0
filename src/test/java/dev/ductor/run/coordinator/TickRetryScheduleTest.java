package dev.ductor.run.coordinator;


import dev.ductor.run.RunConflictException;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Tag("unit")
class TickRetryScheduleTest {

    private static final List<Duration> SEED = List.of(Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofSeconds(1));

    @Test
    void retriesFollowTheSeedScheduleAfterAnImmediateFirstAttempt() {
        TickRetrySchedule schedule = new TickRetrySchedule(SEED);
        schedule.init(0);
        RunConflictException conflict = new RunConflictException(java.util.UUID.randomUUID(), 1, 2L, 3L);
        assertEquals(List.of(10L, 20L, 40L, 1000L), List.of(
                schedule.nextDelayInMillis(conflict), schedule.nextDelayInMillis(conflict),
                schedule.nextDelayInMillis(conflict), schedule.nextDelayInMillis(conflict)));
    }

    @Test
    void aScheduleShorterThanTheRetriesRepeatsItsLastDelay() {
        TickRetrySchedule schedule = new TickRetrySchedule(List.of(Duration.ofMillis(5)));
        schedule.init(0);
        RunConflictException conflict = new RunConflictException(java.util.UUID.randomUUID(), 1, 2L, 3L);
        schedule.nextDelayInMillis(conflict);
        assertEquals(5L, schedule.nextDelayInMillis(conflict));
    }
}
