package dev.ductor.config;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;

/**
 * JSON is read strictly: text after the document ({@code {...} x}) is an error rather than ignored, and
 * floating-point numbers are kept exactly as sent (a {@code 1e400} stays that number instead of turning into
 * the string "Infinity"). Within bounds ({@link JsonLimits}): nesting, the length of numbers and strings, and a number's
 * size written out in full ({@link BoundedNumbers}). This is the application's one mapper: the REST layer reads request
 * bodies with it, and {@link JsonCodec} the JSON columns.
 */
@Singleton
public class StrictJson implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        mapper.getFactory().setStreamReadConstraints(JsonLimits.streamReadConstraints());
        mapper.setNodeFactory(new BoundedNumbers.Nodes());
        mapper.registerModule(new SimpleModule("ductor-bounded-numbers").addDeserializer(JsonNode.class, new BoundedNumbers.Trees()));
    }
}
