package dev.ductor.error;

import java.util.LinkedHashMap;
import java.util.Map;

/** A request that is well-formed but cannot apply to the resource in its current state (e.g. a finished run). */
public class ConflictException extends DuctorException {

    private final String type;
    private final Map<String, Object> extensions;

    public ConflictException(String type, String message, Map<String, Object> extensions) {
        super(message);
        this.type = type;
        this.extensions = new LinkedHashMap<>(extensions);
    }

    @Override
    public int status() {
        return 409;
    }

    @Override
    public String type() {
        return type;
    }

    @Override
    public String title() {
        return "Conflict";
    }

    @Override
    public Map<String, Object> extensions() {
        return extensions;
    }
}
