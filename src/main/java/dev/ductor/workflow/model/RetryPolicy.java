package dev.ductor.workflow.model;

import java.time.Duration;

/**
 * How often a task node is tried and how long to wait between tries: {@code backoff * 2^(attempt-1)},
 * capped at {@link #MAX_BACKOFF} so a long retry chain never sleeps for hours by accident.
 */
public record RetryPolicy(int maxAttempts, Duration backoff) {

    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO);
    public static final Duration MAX_BACKOFF = Duration.ofHours(1);

    public Duration delayBefore(int nextAttempt) {
        if (nextAttempt <= 1 || backoff.isZero()) {
            return Duration.ZERO;
        }
        long factor = 1L << Math.min(nextAttempt - 2, 30);
        // Compare before multiplying: a huge backoff times 2^30 would overflow Duration.
        if (backoff.compareTo(MAX_BACKOFF.dividedBy(factor)) > 0) {
            return MAX_BACKOFF;
        }
        Duration delay = backoff.multipliedBy(factor);
        return delay.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : delay;
    }
}
