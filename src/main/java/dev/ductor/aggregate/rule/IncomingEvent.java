package dev.ductor.aggregate.rule;

import com.fasterxml.jackson.databind.JsonNode;

/** A validated {@code POST /events} body: type, optional key and payload, and the sender's idempotency key. */
public record IncomingEvent(String type, String key, JsonNode payload, String idempotencyKey) {
}
