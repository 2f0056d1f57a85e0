package dev.ductor.run.coordinator;

/**
 * Counts the attempts of one retried call and when each began (monotonic nanos), so retries are metered and
 * their schedule can be checked from recorded timings. One attempt at a time, on the caller's thread or, for a
 * coordinator tick that lost its first attempt, on a {@link TickRetries} thread: hence synchronized.
 */
public final class Attempts {

    private final java.util.List<Long> startedNanos = new java.util.ArrayList<>();

    /** Records an attempt and returns its number, starting at 1. */
    synchronized int next() {
        startedNanos.add(System.nanoTime());
        return startedNanos.size();
    }

    public synchronized int made() {
        return startedNanos.size();
    }

    /** When each attempt began, from {@link System#nanoTime()}. */
    public synchronized java.util.List<Long> startedNanos() {
        return java.util.List.copyOf(startedNanos);
    }
}
