package dev.ductor.config;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * A {@code timestamptz} column read through a native query: Hibernate hands it back as an Instant, an
 * OffsetDateTime or a Timestamp depending on the query, so every native read converts it here. And the hot paths'
 * plain-JDBC writes bind their instants here ({@link #bind}).
 */
public final class SqlTimestamps {

    private static final DateTimeFormatter POSTGRES_UTC =
            DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS'+00'");

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

    /**
     * Binds {@code at} to a {@code timestamptz} parameter as the text PostgreSQL reads, in UTC, its type left to the
     * statement (a column, a comparison, a cast). Why not {@code setObject(OffsetDateTime)}: pgjdbc formats that with a
     * TimestampUtils it builds for each statement (a GregorianCalendar and its tables), 1.4 % of a pod's CPU under
     * chain3 for the few statements a step writes; it sends text as well, so PostgreSQL's work is the same.
     */
    public static void bind(PreparedStatement statement, int index, Instant at) throws SQLException {
        Instant micros = at.plusNanos(500).truncatedTo(ChronoUnit.MICROS); // rounded, as pgjdbc and PostgreSQL do
        LocalDateTime t = LocalDateTime.ofEpochSecond(micros.getEpochSecond(), micros.getNano(), ZoneOffset.UTC);
        if (t.getYear() < 1 || t.getYear() > 9999) {
            statement.setObject(index, at.atOffset(ZoneOffset.UTC)); // outside the plain four-digit form: let pgjdbc
            return;
        }
        statement.setObject(index, text(t), Types.OTHER);
    }

    /** {@code 2026-12-04 12:00:00.123456+00}: microseconds, as PostgreSQL keeps them (finer digits are dropped). */
    static String text(LocalDateTime t) {
        return POSTGRES_UTC.format(t);
    }
}
