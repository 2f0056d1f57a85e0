package dev.ductor.worker;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** Which step an attempt belongs to: the run, the node and the attempt's number (from 1). */
public record StepContext(UUID runId, String node, int attempt) {

    /**
     * The same for every attempt of this node of this run, and for no other step: a service that deduplicates on it
     * performs the step's effect once however often it is attempted. A name-based UUID, so it carries nothing that
     * needs escaping in a header, whatever the node is called.
     */
    public String idempotencyKey() {
        return UUID.nameUUIDFromBytes(("ductor-step:" + runId + ":" + node).getBytes(StandardCharsets.UTF_8)).toString();
    }
}
