package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/** 403: the token's role may not do this. */
public class ForbiddenException extends DuctorException {

    public ForbiddenException(String message, JsonNode problem) {
        super(403, message, problem);
    }
}
