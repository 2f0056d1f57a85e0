package dev.ductor.config;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.LocalDateTime;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Tag("unit")
class SqlTimestampsTest {

    @Test
    void writesPostgresTextInUtcWithMicroseconds() {
        assertEquals("2026-12-04 12:03:09.000042+00", SqlTimestamps.text(LocalDateTime.of(2026, 12, 4, 12, 3, 9, 42_000)));
        assertEquals("0987-01-01 00:00:00.000000+00", SqlTimestamps.text(LocalDateTime.of(987, 1, 1, 0, 0)));
        assertEquals("9999-12-31 23:59:59.999999+00",
                SqlTimestamps.text(LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000)));
    }
}
