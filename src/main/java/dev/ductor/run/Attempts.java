package dev.ductor.run;

/** Counts the attempts of one retried call; the retried method runs on the caller's thread, one at a time. */
public final class Attempts {

    private int made;

    /** Records an attempt and returns its number, starting at 1. */
    int next() {
        return ++made;
    }

    public int made() {
        return made;
    }
}
