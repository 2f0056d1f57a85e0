package dev.ductor.error;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An idempotency key sent again with a different request (IETF Idempotency-Key draft: 422). Answering it with
 * the first request's result would tell the caller that its new request was done when it was not.
 */
public class IdempotencyKeyReusedException extends DuctorException {

    private final String idempotencyKey;

    /** {@code firstUse} says what the key was first used for, e.g. "a start of workflow 'order'". */
    public IdempotencyKeyReusedException(String idempotencyKey, String firstUse) {
        super("The idempotencyKey '" + idempotencyKey + "' was already used for " + firstUse + " with a different"
                + " body. Nothing was done. Send exactly the first request again to get its answer, or use a new key"
                + " for a new request.");
        this.idempotencyKey = idempotencyKey;
    }

    @Override
    public int status() {
        return 422;
    }

    @Override
    public String type() {
        return "idempotency-key-reused";
    }

    @Override
    public String title() {
        return "Idempotency key already used for another request";
    }

    @Override
    public Map<String, Object> extensions() {
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("idempotencyKey", idempotencyKey);
        extensions.put("field", "idempotencyKey");
        return extensions;
    }
}
