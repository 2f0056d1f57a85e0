package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/** 404: no such resource in your tenant. */
public class NotFoundException extends DuctorException {

    public NotFoundException(String message, JsonNode problem) {
        super(404, message, problem);
    }
}
