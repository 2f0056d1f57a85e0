package dev.ductor.error;

import java.util.Map;

/**
 * A request body past the API's limit, found while it was read (a body sent in chunks, without a Content-Length):
 * nothing was applied, and the connection is closed, since the rest of the body is never read.
 */
public class PayloadTooLargeException extends DuctorException {

    private final long maxBytes;

    public PayloadTooLargeException(long maxBytes) {
        super("the request body is over " + maxBytes + " bytes; the API accepts at most 1 MiB. Nothing was applied.");
        this.maxBytes = maxBytes;
    }

    @Override
    public int status() {
        return 413;
    }

    @Override
    public String type() {
        return "payload-too-large";
    }

    @Override
    public String title() {
        return "Payload too large";
    }

    @Override
    public Map<String, Object> extensions() {
        return Map.of("maxBytes", maxBytes);
    }

    @Override
    public Map<String, String> headers() {
        return Map.of("Connection", "close");
    }
}
