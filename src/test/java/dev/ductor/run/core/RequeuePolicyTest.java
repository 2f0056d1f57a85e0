package dev.ductor.run.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RequeuePolicyTest {

    private static final Duration BASE = Duration.ofMillis(100);
    private static final Duration CAP = Duration.ofSeconds(10);

    @Test
    void backoffDoublesFromOneHundredMillisecondsAndStopsAtTenSeconds() {
        assertEquals(java.util.List.of(100L, 200L, 400L, 800L, 1600L, 3200L, 6400L, 10_000L, 10_000L),
                IntStream.rangeClosed(1, 9).mapToObj(n -> RequeuePolicy.backoff(n, BASE, CAP).toMillis()).toList());
        assertEquals(CAP, RequeuePolicy.backoff(1_000, BASE, CAP), "no overflow for absurd counts");
    }

    @Test
    void aFirstRequeueCountsOne() {
        assertEquals(new RequeuePolicy.Decision(1, false), RequeuePolicy.decide(0, null, 7L, 8));
    }

    @Test
    void requeuesWithoutProgressAccumulateUntilTheLimitForceFails() {
        assertEquals(new RequeuePolicy.Decision(8, false), RequeuePolicy.decide(7, 12L, 12L, 8));
        RequeuePolicy.Decision ninth = RequeuePolicy.decide(8, 12L, 12L, 8);
        assertEquals(9, ninth.nextCount());
        assertTrue(ninth.forceFail());
    }

    @Test
    void progressSinceTheLastRequeueResetsTheCount() {
        RequeuePolicy.Decision decision = RequeuePolicy.decide(8, 12L, 13L, 8);
        assertEquals(1, decision.nextCount());
        assertFalse(decision.forceFail());
    }

    @Test
    void anUnknownSeqIsNotTakenForProgress() {
        assertEquals(new RequeuePolicy.Decision(4, false), RequeuePolicy.decide(3, 12L, null, 8));
    }
}
