package dev.ductor.support;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.HashMap;
import java.util.Map;

/** Manual coordination, and no in-process retries: one lost race exhausts a tick, so requeues are easy to provoke. */
public class SingleAttempt implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> config = new HashMap<>(new ManualCoordination().getConfigOverrides());
        config.put("ductor.coordinator.max-retries", "0");
        return config;
    }
}
