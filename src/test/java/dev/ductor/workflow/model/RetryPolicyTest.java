package dev.ductor.workflow.model;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Exponential backoff between attempts: nothing before the first, {@code backoff * 2^(n-2)} before the n-th. */
@Tag("unit")
class RetryPolicyTest {

    private final RetryPolicy policy = new RetryPolicy(10, Duration.ofSeconds(1));

    @Test
    void firstAttemptHasNoDelay() {
        assertEquals(Duration.ZERO, policy.delayBefore(1));
        assertEquals(Duration.ZERO, policy.delayBefore(0));
    }

    @Test
    void secondAttemptWaitsOneBackoff() {
        assertEquals(Duration.ofSeconds(1), policy.delayBefore(2));
    }

    @Test
    void delayDoublesWithEachFurtherAttempt() {
        assertEquals(Duration.ofSeconds(2), policy.delayBefore(3));
        assertEquals(Duration.ofSeconds(4), policy.delayBefore(4));
        assertEquals(Duration.ofSeconds(8), policy.delayBefore(5));
        assertEquals(Duration.ofMillis(1500), new RetryPolicy(3, Duration.ofMillis(750)).delayBefore(3));
    }

    @Test
    void delayIsCappedAtMaxBackoff() {
        assertEquals(Duration.ofHours(1), RetryPolicy.MAX_BACKOFF);
        // 1s * 2^11 = 2048s, 1s * 2^12 = 4096s > 3600s
        assertEquals(Duration.ofSeconds(2048), policy.delayBefore(13));
        assertEquals(RetryPolicy.MAX_BACKOFF, policy.delayBefore(14));
        assertEquals(RetryPolicy.MAX_BACKOFF, policy.delayBefore(100));
        assertEquals(RetryPolicy.MAX_BACKOFF, new RetryPolicy(2, Duration.ofHours(2)).delayBefore(2));
    }

    @Test
    void zeroBackoffNeverWaits() {
        assertEquals(Duration.ZERO, RetryPolicy.NONE.delayBefore(5));
        assertEquals(Duration.ZERO, new RetryPolicy(5, Duration.ZERO).delayBefore(3));
    }

    @Test
    void noneMeansOneAttempt() {
        assertEquals(1, RetryPolicy.NONE.maxAttempts());
    }

    /**
     * The parser accepts any non-negative backoff and up to 100 attempts, so the cap must hold for every
     * such policy rather than overflow {@link Duration} (the exponent is capped at 30, the product is not).
     */
    @Test
    void hugeBackoffIsCappedInsteadOfOverflowing() {
        RetryPolicy absurd = new RetryPolicy(100, Duration.ofDays(365L * 1000));
        assertEquals(RetryPolicy.MAX_BACKOFF, absurd.delayBefore(40));
        assertEquals(RetryPolicy.MAX_BACKOFF,
                new RetryPolicy(3, Duration.ofSeconds(Long.MAX_VALUE / 2 + 1)).delayBefore(3));
    }
}
