package dev.ductor.run;

import dev.ductor.error.DuctorException;

import java.util.Map;
import java.util.UUID;

/**
 * A run's row does not match its state checksum (its status, seq, output, tier or node states were changed outside
 * Ductor, or the row is torn): it is neither advanced nor served as a healthy run. On the API a 500
 * {@code run-state-corrupt} problem with {@code integrity: "corrupt"}: nothing a client sends can fix it, an
 * operator must repair the row.
 */
public class CorruptRunStateException extends DuctorException {

    private final UUID runId;

    public CorruptRunStateException(UUID runId, String stored, String computed) {
        super("run " + runId + " does not match its state checksum (stored " + stored + ", computed " + computed
                + "): its status, seq, output, tier or node states were changed outside Ductor. Ductor refuses to advance"
                + " or serve it; repair the row, or fail it, by hand");
        this.runId = runId;
    }

    public CorruptRunStateException(UUID runId, RuntimeException unreadable) {
        super("run " + runId + " has node states that cannot be read (" + unreadable.getMessage() + "). Ductor refuses"
                + " to advance or serve it; repair the row by hand", unreadable);
        this.runId = runId;
    }

    public UUID runId() {
        return runId;
    }

    @Override
    public int status() {
        return 500;
    }

    @Override
    public String type() {
        return "run-state-corrupt";
    }

    @Override
    public String title() {
        return "Run state failed verification";
    }

    @Override
    public Map<String, Object> extensions() {
        return Map.of("runId", runId.toString(), "integrity", "corrupt");
    }
}
