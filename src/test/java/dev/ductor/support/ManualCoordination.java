package dev.ductor.support;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/** No background loops: the test alone decides when a run ticks and when a task is claimed. */
public class ManualCoordination implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "ductor.coordinator.enabled", "false",
                "ductor.worker.enabled", "false",
                "ductor.watchdog.enabled", "false",
                "ductor.worker.reaper-enabled", "false",
                "ductor.bulk.enabled", "false",
                "ductor.fleet.sampler-enabled", "false");
    }
}
