package dev.ductor.run;

/** One unconsumed inbox row. */
public record InboxMessage(long id, InboxKind kind, String nodeId, Integer attempt, String payload) {
}
