package dev.ductor.worker.egress;

import java.time.Duration;
import java.util.Map;

/**
 * What bounds an {@code http} step: where it may connect, how long the whole exchange may take (connecting, sending and
 * reading the body; a step's {@code timeoutMs} can only shorten it), how large an answer may be, and the secrets the pod
 * holds for {@code "auth": {"secretRef": name}}.
 */
public record HttpSettings(EgressPolicy policy, Duration maxTime, long maxResponseBytes, Map<String, String> secrets) {

    public HttpSettings {
        secrets = Map.copyOf(secrets);
    }
}
