package dev.ductor.api;

import io.quarkus.runtime.annotations.RegisterForReflection;
import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.LinkedHashMap;
import java.util.Map;

/** An RFC 9457 problem document; extension members are written at the top level beside the standard ones. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "instance"})
@RegisterForReflection
public record Problem(String type, String title, int status, String detail, String instance,
                      @com.fasterxml.jackson.annotation.JsonIgnore Map<String, Object> extensions) {

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final String TYPE_BASE = "https://ductor.dev/problems/";

    public static Problem of(String type, String title, int status, String detail, String instance, Map<String, Object> extensions) {
        return new Problem(TYPE_BASE + type, title, status, detail, instance, new LinkedHashMap<>(extensions));
    }

    @JsonAnyGetter
    public Map<String, Object> any() {
        return extensions;
    }
}
