package dev.ductor.config;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * A {@code timestamptz} column read through a native query: Hibernate hands it back as an Instant, an
 * OffsetDateTime or a Timestamp depending on the query, so every native read converts it here. And the hot paths'
 * plain-JDBC writes bind their instants here ({@link #bind}).
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

    /**
     * Binds {@code at} to a {@code timestamptz} parameter as the text PostgreSQL reads, in UTC, its type left to the
     * statement (a column, a comparison, a cast). Why not {@code setObject(OffsetDateTime)}: pgjdbc formats that with a
     * TimestampUtils it builds for each statement (a GregorianCalendar and its tables), a cost every step pays on the
     * hot path for the few statements it writes; it sends text as well, so PostgreSQL's work is the same.
     */
    public static void bind(PreparedStatement statement, int index, Instant at) throws SQLException {
        LocalDateTime t = utcMicros(at);
        if (t.getYear() < 1 || t.getYear() > 9999) {
            statement.setObject(index, at.atOffset(ZoneOffset.UTC)); // outside the plain four-digit form: let pgjdbc
            return;
        }
        statement.setObject(index, text(t), Types.OTHER);
    }

    /**
     * {@code at} as the text {@link #bind} sends, for an element of a {@code timestamptz[]} bound as {@code text[]}; ISO
     * 8601 outside the plain four-digit years.
     */
    public static String text(Instant at) {
        LocalDateTime t = utcMicros(at);
        return t.getYear() < 1 || t.getYear() > 9999 ? at.toString() : text(t);
    }

    /** {@code at} in UTC, rounded to microseconds as pgjdbc and PostgreSQL do. */
    private static LocalDateTime utcMicros(Instant at) {
        Instant micros = at.plusNanos(500).truncatedTo(ChronoUnit.MICROS);
        return LocalDateTime.ofEpochSecond(micros.getEpochSecond(), micros.getNano(), ZoneOffset.UTC);
    }

    /**
     * {@code 2026-12-04 12:00:00.123456+00}: microseconds, as PostgreSQL keeps them (finer digits are dropped); the
     * year is four digits (the caller keeps to 1..9999). Written digit by digit: a {@code DateTimeFormatter} builds a
     * print context, a StringBuilder and a BigDecimal for the fraction each time, and every step binds several
     * instants on the hot path, so that garbage adds up (docs/bench-journal/chain3.md).
     */
    static String text(LocalDateTime t) {
        char[] c = "0000-00-00 00:00:00.000000+00".toCharArray();
        digits(c, 0, 4, t.getYear());
        digits(c, 5, 2, t.getMonthValue());
        digits(c, 8, 2, t.getDayOfMonth());
        digits(c, 11, 2, t.getHour());
        digits(c, 14, 2, t.getMinute());
        digits(c, 17, 2, t.getSecond());
        digits(c, 20, 6, t.getNano() / 1_000);
        return new String(c);
    }

    /** {@code value} as {@code width} decimal digits, zero-padded, at {@code c[from]}. */
    private static void digits(char[] c, int from, int width, int value) {
        for (int i = from + width - 1; i >= from; i--) {
            c[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }
}
