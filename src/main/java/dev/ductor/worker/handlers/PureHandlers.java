package dev.ductor.worker.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ductor.worker.StepContext;
import dev.ductor.worker.StepHandler;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.util.function.UnaryOperator;

/**
 * The handlers whose output is a function of their input and nothing else: each is that function and its name, one
 * bean apiece (worker/StepHandlers finds them like any other).
 */
@Singleton
public class PureHandlers {

    /** Returns its input as its output. */
    @Produces
    @Singleton
    StepHandler echo() {
        return new Pure("echo", input -> input == null ? JsonNodeFactory.instance.nullNode() : input);
    }

    /** Succeeds at once with an empty object: the unit of coordination overhead. */
    @Produces
    @Singleton
    StepHandler noop() {
        return new Pure("noop", input -> JsonNodeFactory.instance.objectNode());
    }

    record Pure(String name, UnaryOperator<JsonNode> output) implements StepHandler {

        @Override
        public JsonNode run(StepContext step, JsonNode input) {
            return output.apply(input);
        }
    }
}
