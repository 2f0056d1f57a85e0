package dev.ductor.error;

import java.util.Map;

/**
 * This pod is shutting down and took the request too late to apply it: nothing was applied, and another pod (or this
 * one, restarted) will take it after Retry-After.
 */
public class PodStoppingException extends DuctorException {

    public PodStoppingException(String what) {
        super("this pod is shutting down and did not apply " + what + ". Send it again after Retry-After.");
    }

    @Override
    public int status() {
        return 503;
    }

    @Override
    public String type() {
        return "pod-stopping";
    }

    @Override
    public String title() {
        return "Pod stopping";
    }

    @Override
    public Map<String, String> headers() {
        return Map.of("Retry-After", "1");
    }
}
