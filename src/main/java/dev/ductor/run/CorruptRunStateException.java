package dev.ductor.run;

import java.util.UUID;

/** The stored node states do not match their checksum: the row was changed outside Ductor or torn. */
public class CorruptRunStateException extends IllegalStateException {

    public CorruptRunStateException(UUID runId, String stored, String computed) {
        super("run " + runId + " node_states checksum mismatch (stored " + stored + ", computed " + computed
                + "); refusing to advance it");
    }
}
