package dev.ductor.config;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * A {@code timestamptz} column read through a native query: Hibernate hands it back as an Instant, an
 * OffsetDateTime or a Timestamp depending on the query, so every native read converts it here.
 */
public final class SqlTimestamps {

    private SqlTimestamps() {
    }

    public static Instant toInstant(Object value) {
        if (value instanceof Instant instant) {
            return instant;
        }
        if (value instanceof OffsetDateTime odt) {
            return odt.toInstant();
        }
        if (value instanceof Timestamp timestamp) {
            return timestamp.toInstant();
        }
        throw new IllegalStateException("unexpected timestamp type " + (value == null ? "null" : value.getClass()));
    }
}
