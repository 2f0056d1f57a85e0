package dev.ductor.workflow;

import dev.ductor.error.StaleVersionException;

/**
 * Two editors sent the same current version at once and the other one's versioned UPDATE won. The
 * transaction is rolled back; the caller reads the winner's revision afresh to report the 409.
 */
public class LostEditRaceException extends StaleVersionException {

    private final String name;
    private final long sentVersion;

    public LostEditRaceException(String name, long sentVersion) {
        super("workflow " + name + " was changed concurrently");
        this.name = name;
        this.sentVersion = sentVersion;
    }

    public String name() {
        return name;
    }

    public long sentVersion() {
        return sentVersion;
    }
}
