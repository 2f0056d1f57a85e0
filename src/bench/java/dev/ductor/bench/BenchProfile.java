package dev.ductor.bench;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/**
 * The benchmarks' profile: no coordinator, worker or watchdog loops (the switches of the tests'
 * ManualCoordination profile), and neither the lease reaper nor the 5-second queue sampler, so the benchmark
 * alone decides what hits the database and when.
 */
public class BenchProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "ductor.coordinator.enabled", "false",
                "ductor.worker.enabled", "false",
                "ductor.watchdog.enabled", "false",
                "ductor.worker.reaper-enabled", "false",
                "ductor.metrics.queue-sample-interval", "1h");
    }
}
