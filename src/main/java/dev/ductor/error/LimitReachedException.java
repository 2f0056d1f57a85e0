package dev.ductor.error;

import java.util.Map;

/**
 * A bound on what one caller may hold or pile up was reached (long polls or live streams open, signals pending on a
 * run): nothing was applied; the answer names the bound and the setting that sets it, and Retry-After says when to
 * try again.
 */
public class LimitReachedException extends DuctorException {

    private final String limit;
    private final String setting;
    private final int max;

    public LimitReachedException(String limit, String setting, int max, String what) {
        super(what + " Nothing was applied: send it again after Retry-After, once some have ended (bound: " + max
                + ", setting " + setting + ").");
        this.limit = limit;
        this.setting = setting;
        this.max = max;
    }

    @Override
    public int status() {
        return 429;
    }

    @Override
    public String type() {
        return "limit-reached";
    }

    @Override
    public String title() {
        return "Limit reached";
    }

    @Override
    public Map<String, Object> extensions() {
        return Map.of("limit", limit, "max", max, "setting", setting);
    }

    @Override
    public Map<String, String> headers() {
        return Map.of("Retry-After", "1");
    }
}
