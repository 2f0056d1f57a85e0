package dev.ductor.run;

/**
 * Counts the attempts of one retried call and when each began (monotonic nanos), so retries are metered and
 * their schedule can be checked from recorded timings. The retried method runs on the caller's thread, one
 * attempt at a time.
 */
public final class Attempts {

    private final java.util.List<Long> startedNanos = new java.util.ArrayList<>();

    /** Records an attempt and returns its number, starting at 1. */
    int next() {
        startedNanos.add(System.nanoTime());
        return startedNanos.size();
    }

    public int made() {
        return startedNanos.size();
    }

    /** When each attempt began, from {@link System#nanoTime()}. */
    public java.util.List<Long> startedNanos() {
        return java.util.List.copyOf(startedNanos);
    }
}
