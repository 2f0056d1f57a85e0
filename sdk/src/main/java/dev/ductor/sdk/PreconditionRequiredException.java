package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/** 428: the change needs If-Match with the version you read (the ETag of a GET); nothing was saved. */
public class PreconditionRequiredException extends DuctorException {

    public PreconditionRequiredException(String message, JsonNode problem) {
        super(428, message, problem);
    }
}
