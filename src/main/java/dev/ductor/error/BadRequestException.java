package dev.ductor.error;

import java.util.LinkedHashMap;
import java.util.Map;

/** Input that cannot be understood: malformed JSON, wrong types, bad ids, bad filters. */
public class BadRequestException extends DuctorException {

    private final String field;

    public BadRequestException(String field, String message) {
        super(message);
        this.field = field;
    }

    @Override
    public int status() {
        return 400;
    }

    @Override
    public String type() {
        return "bad-request";
    }

    @Override
    public String title() {
        return "Bad request";
    }

    @Override
    public Map<String, Object> extensions() {
        Map<String, Object> extensions = new LinkedHashMap<>();
        if (field != null) {
            extensions.put("field", field);
        }
        return extensions;
    }
}
