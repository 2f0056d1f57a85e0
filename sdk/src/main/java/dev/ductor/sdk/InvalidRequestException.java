package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * 400 or 422: the request was refused as it stands (a bad body, an invalid definition, an idempotency key reused
 * with another body); the problem names the field or the violations. Sending it again unchanged will not help.
 */
public class InvalidRequestException extends DuctorException {

    public InvalidRequestException(int status, String message, JsonNode problem) {
        super(status, message, problem);
    }
}
