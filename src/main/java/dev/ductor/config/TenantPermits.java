package dev.ductor.config;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What each tenant holds open in this pod at once (long-poll claims, live streams), counted against a bound, so that
 * one tenant's callers cannot take every thread or connection of the pod from the others. Per pod: a fleet of N pods
 * admits N times the bound, which is what its capacity is too.
 */
public final class TenantPermits {

    private final ConcurrentHashMap<String, AtomicInteger> held = new ConcurrentHashMap<>();

    /** Takes one of the tenant's permits; false, taking nothing, when it holds {@code max} already. */
    public boolean tryAcquire(String tenant, int max) {
        boolean[] taken = {false};
        held.compute(tenant, (t, count) -> {
            AtomicInteger now = count == null ? new AtomicInteger() : count;
            if (now.get() < max) {
                now.incrementAndGet();
                taken[0] = true;
            }
            return now.get() == 0 ? null : now;
        });
        return taken[0];
    }

    /** Gives back a permit taken with {@link #tryAcquire}. */
    public void release(String tenant) {
        held.computeIfPresent(tenant, (t, count) -> count.decrementAndGet() <= 0 ? null : count);
    }

    /** How many the tenant holds now. */
    public int held(String tenant) {
        AtomicInteger count = held.get(tenant);
        return count == null ? 0 : count.get();
    }
}
