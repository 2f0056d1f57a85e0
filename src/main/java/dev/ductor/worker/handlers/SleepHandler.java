package dev.ductor.worker.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ductor.worker.StepFailure;
import dev.ductor.worker.StepContext;
import dev.ductor.worker.StepHandler;
import jakarta.enterprise.context.ApplicationScoped;

/** Sleeps {@code input.ms} milliseconds (at most ten minutes), then succeeds. */
@ApplicationScoped
public class SleepHandler implements StepHandler {

    static final long MAX_MS = 600_000;

    @Override
    public String name() {
        return "sleep";
    }

    @Override
    public JsonNode run(StepContext step, JsonNode input) throws Exception {
        JsonNode ms = input == null ? null : input.get("ms");
        if (ms == null || !ms.canConvertToLong() || ms.asLong() < 0 || ms.asLong() > MAX_MS) {
            throw new StepFailure("sleep needs input {\"ms\": 0.." + MAX_MS + "}", false);
        }
        Thread.sleep(ms.asLong());
        return JsonNodeFactory.instance.objectNode().put("slept", ms.asLong());
    }
}
