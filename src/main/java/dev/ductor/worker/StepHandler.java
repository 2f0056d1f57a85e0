package dev.ductor.worker;

import com.fasterxml.jackson.databind.JsonNode;

/** An in-process task implementation, named by a task node's {@code handler}. */
public interface StepHandler {

    String name();

    /**
     * Runs one attempt of {@code step}. Throw {@link StepFailure} to fail it; any other exception counts as retryable.
     * An interrupt means the lease was lost or the pod is stopping: stop, the result would be refused anyway.
     */
    JsonNode run(StepContext step, JsonNode input) throws Exception;

    /**
     * True when an attempt changes something outside Ductor (an HTTP call): the worker then confirms its lease with
     * the database right before it starts one, rather than trusting its own reckoning of the lease (a pod frozen past
     * it, or a clock behind the database's, would start an attempt another pod already owns). Steps without external
     * effects skip that round trip: running one twice is harmless, and its second result is fenced off.
     */
    default boolean hasExternalEffects() {
        return false;
    }
}
