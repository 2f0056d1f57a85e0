package dev.ductor.run.coordinator;

import io.smallrye.faulttolerance.api.CustomBackoffStrategy;

import java.time.Duration;
import java.util.List;

/**
 * The delays between a lost tick's in-process retries ({@link TickRetries}): 10 ms, 20 ms, 40 ms and 1 s by default,
 * from {@code ductor.coordinator.retry-delays}; the last one repeats if there are more retries than delays. SmallRye
 * asks the guard for one strategy per guarded call, so the position in the schedule is plain instance state.
 */
public class TickRetrySchedule implements CustomBackoffStrategy {

    private final List<Duration> delays;
    private int retry;

    TickRetrySchedule(List<Duration> delays) {
        this.delays = List.copyOf(delays);
    }

    @Override
    public long nextDelayInMillis(Throwable cause) {
        Duration delay = delays.get(Math.min(retry++, delays.size() - 1));
        return delay.toMillis();
    }
}
