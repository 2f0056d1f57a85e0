package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/** 401: no valid bearer token. */
public class UnauthorizedException extends DuctorException {

    public UnauthorizedException(String message, JsonNode problem) {
        super(401, message, problem);
    }
}
