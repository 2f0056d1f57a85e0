package dev.ductor.run.core;

import java.time.Duration;

/**
 * What to do with a wakeup whose tick lost every in-process retry. The requeue count rides on the wakeup
 * (never on the run row) together with the run's {@code last_transition_seq} when it was last requeued.
 * A requeue counts as non-progressing only if that seq has not grown since: a run that is merely hot (its
 * ticks lose because others commit progress) restarts at 1 and never reaches the livelock limit.
 */
public final class RequeuePolicy {

    private RequeuePolicy() {
    }

    public record Decision(int nextCount, boolean forceFail) {
    }

    /**
     * @param priorCount  the count on the lost wakeup (0 for one never requeued)
     * @param seenSeq     the run's seq recorded when the wakeup was requeued, or null
     * @param currentSeq  the run's seq now (the winner's), or null if unknown
     * @param maxNonProgressing requeues without progress tolerated before the run is force-failed
     */
    public static Decision decide(int priorCount, Long seenSeq, Long currentSeq, int maxNonProgressing) {
        boolean progressedSince = seenSeq != null && currentSeq != null && currentSeq > seenSeq;
        int next = progressedSince ? 1 : priorCount + 1;
        return new Decision(next, next > maxNonProgressing);
    }

    /** {@code base * 2^(n-1)} for the n-th requeue, capped: 100 ms, 200 ms, 400 ms ... 10 s by default. */
    public static Duration backoff(int count, Duration base, Duration cap) {
        int exponent = Math.max(0, Math.min(count - 1, 30));
        if (base.compareTo(cap.dividedBy(1L << exponent)) > 0) {
            return cap;
        }
        Duration delay = base.multipliedBy(1L << exponent);
        return delay.compareTo(cap) > 0 ? cap : delay;
    }
}
