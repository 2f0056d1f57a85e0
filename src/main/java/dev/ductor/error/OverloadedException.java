package dev.ductor.error;

import java.util.Map;

/**
 * This pod has as much work waiting as it may hold (its start queue is full): nothing was applied; another pod, or this
 * one after Retry-After, takes it. The answer names the bound and its setting.
 */
public class OverloadedException extends DuctorException {

    private final String setting;
    private final int max;

    public OverloadedException(String what, String setting, int max) {
        super("this pod already has " + max + " " + what + " waiting and did not take this one: nothing was applied."
                + " Send it again after Retry-After (bound: setting " + setting + ").");
        this.setting = setting;
        this.max = max;
    }

    @Override
    public int status() {
        return 503;
    }

    @Override
    public String type() {
        return "overloaded";
    }

    @Override
    public String title() {
        return "Overloaded";
    }

    @Override
    public Map<String, Object> extensions() {
        return Map.of("max", max, "setting", setting);
    }

    @Override
    public Map<String, String> headers() {
        return Map.of("Retry-After", "1");
    }
}
