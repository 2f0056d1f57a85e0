package dev.ductor.run;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.faulttolerance.api.CustomBackoffStrategy;
import org.eclipse.microprofile.config.ConfigProvider;

import java.time.Duration;
import java.util.List;

/**
 * The seed's in-process retry schedule after a version conflict: 0 (the first attempt), then 10 ms,
 * 20 ms, 40 ms and 1 s, from {@code ductor.coordinator.retry-delays}. SmallRye creates one strategy per
 * invocation, so the position in the schedule is plain instance state.
 */
@RegisterForReflection
public class TickRetrySchedule implements CustomBackoffStrategy {

    private List<Duration> delays;
    private int retry;

    /** SmallRye instantiates the strategy reflectively; the delays then come from configuration in {@link #init}. */
    public TickRetrySchedule() {
    }

    TickRetrySchedule(List<Duration> delays) {
        this.delays = List.copyOf(delays);
    }

    @Override
    public void init(long initialDelayInMillis) {
        if (delays == null) {
            delays = ConfigProvider.getConfig().getValues("ductor.coordinator.retry-delays", Duration.class);
        }
    }

    @Override
    public long nextDelayInMillis(Throwable cause) {
        Duration delay = delays.get(Math.min(retry++, delays.size() - 1));
        return delay.toMillis();
    }
}
