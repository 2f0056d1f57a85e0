package dev.ductor.worker.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.worker.StepFailure;
import dev.ductor.worker.StepContext;
import dev.ductor.worker.StepHandler;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Always fails, for trying retries and failure paths: {@code input.message} is the error and
 * {@code input.retryable} (default true) says whether another attempt may be made.
 */
@ApplicationScoped
public class FailHandler implements StepHandler {

    @Override
    public String name() {
        return "fail";
    }

    @Override
    public JsonNode run(StepContext step, JsonNode input) throws StepFailure {
        String message = input != null && input.hasNonNull("message") ? input.get("message").asText() : "failed on purpose";
        boolean retryable = input == null || !input.has("retryable") || input.get("retryable").asBoolean(true);
        throw new StepFailure(message, retryable);
    }
}
