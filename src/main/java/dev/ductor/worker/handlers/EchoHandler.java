package dev.ductor.worker.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ductor.worker.StepContext;
import dev.ductor.worker.StepHandler;
import jakarta.enterprise.context.ApplicationScoped;

/** Returns its input as its output. */
@ApplicationScoped
public class EchoHandler implements StepHandler {

    @Override
    public String name() {
        return "echo";
    }

    @Override
    public JsonNode run(StepContext step, JsonNode input) {
        return input == null ? JsonNodeFactory.instance.nullNode() : input;
    }
}
