package dev.ductor.bench;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/**
 * The signals benchmark's profile: unlike {@link BenchProfile}, the coordinator loops (2 threads, batches of
 * 32) and the in-process workers (8 threads) run as in production, since what is measured is how fast the
 * real coordinator absorbs signals. Only the stuck-run watchdog is off. Every other setting is the default.
 */
public class SignalBenchProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "ductor.coordinator.enabled", "true",
                "ductor.worker.enabled", "true",
                "ductor.watchdog.enabled", "false");
    }
}
