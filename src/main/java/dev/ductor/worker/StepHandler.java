package dev.ductor.worker;

import com.fasterxml.jackson.databind.JsonNode;

/** An in-process task implementation, named by a task node's {@code handler}. */
public interface StepHandler {

    String name();

    /** Runs one attempt. Throw {@link StepFailure} to fail it; any other exception counts as retryable. */
    JsonNode run(JsonNode input) throws Exception;
}
