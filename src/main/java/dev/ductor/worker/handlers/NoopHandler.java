package dev.ductor.worker.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ductor.worker.StepContext;
import dev.ductor.worker.StepHandler;
import jakarta.enterprise.context.ApplicationScoped;

/** Succeeds at once with an empty object: the unit of coordination overhead. */
@ApplicationScoped
public class NoopHandler implements StepHandler {

    @Override
    public String name() {
        return "noop";
    }

    @Override
    public JsonNode run(StepContext step, JsonNode input) {
        return JsonNodeFactory.instance.objectNode();
    }
}
