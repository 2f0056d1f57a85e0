package dev.ductor.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.io.UncheckedIOException;

/** Reads and writes the JSON columns with the application's one ObjectMapper. */
@ApplicationScoped
public class JsonCodec {

    @Inject ObjectMapper mapper;

    public ObjectMapper mapper() {
        return mapper;
    }

    public String write(Object value) {
        if (value == null) {
            return null;
        }
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot serialise " + value.getClass().getSimpleName(), e);
        }
    }

    public JsonNode tree(String json) {
        if (json == null) {
            return null;
        }
        try {
            return mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("stored JSON is unreadable", e);
        }
    }

    public <T> T read(String json, Class<T> type) {
        try {
            return mapper.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("stored JSON is unreadable as " + type.getSimpleName(), e);
        }
    }
}
