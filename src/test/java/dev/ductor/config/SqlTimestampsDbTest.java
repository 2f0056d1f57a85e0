package dev.ductor.config;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An instant bound by {@link SqlTimestamps#bind} reads back from PostgreSQL as the same instant that pgjdbc's own
 * binding stores: rounded to the microsecond, in any session time zone, as a column value, a comparison and in a
 * batch.
 */
@QuarkusTest
@Tag("db")
class SqlTimestampsDbTest {

    @Inject
    DataSource dataSource;

    @Test
    void anInstantReadsBackAsPgjdbcWouldHaveStoredIt() throws Exception {
        Instant[] instants = {
                Instant.parse("2026-12-04T12:03:09.000042Z"),
                Instant.parse("2026-12-04T12:03:09.123456789Z"), // rounds up a microsecond
                Instant.parse("2026-12-31T23:59:59.9999996Z"), // rounds into the next year
                Instant.parse("1970-01-01T00:00:00Z"),
                Instant.parse("0001-01-01T00:00:00Z"),
                Instant.parse("9999-12-31T23:59:59.999999Z"),
                Instant.parse("-0044-03-15T12:00:00Z"), // before the plain form: pgjdbc binds it
        };
        try (Connection connection = dataSource.getConnection()) {
            for (String zone : new String[] {"UTC", "Pacific/Chatham", "America/St_Johns"}) {
                try (var set = connection.createStatement()) {
                    set.execute("SET TIME ZONE '" + zone + "'");
                }
                for (Instant at : instants) {
                    try (PreparedStatement mine = connection.prepareStatement("SELECT CAST(? AS timestamptz), ? = ?")) {
                        SqlTimestamps.bind(mine, 1, at);
                        SqlTimestamps.bind(mine, 2, at);
                        mine.setObject(3, at.atOffset(java.time.ZoneOffset.UTC));
                        try (ResultSet row = mine.executeQuery()) {
                            row.next();
                            Instant read = row.getObject(1, OffsetDateTime.class).toInstant();
                            assertEquals(at.plusNanos(500).truncatedTo(ChronoUnit.MICROS), read, at + " in " + zone);
                            assertEquals(true, row.getBoolean(2), at + " compares equal to pgjdbc's binding in " + zone);
                        }
                    }
                }
            }
            try (var set = connection.createStatement()) {
                set.execute("RESET TIME ZONE");
            }
        }
    }
}
