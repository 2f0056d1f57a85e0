package dev.ductor.config;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Random;

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

    @Test
    void writesWhatTheJdkFormatterWrites() {
        DateTimeFormatter jdk = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS'+00'");
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            LocalDateTime t = LocalDateTime.ofEpochSecond(
                    random.nextLong(LocalDateTime.of(1, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC),
                            LocalDateTime.of(9999, 12, 31, 23, 59, 59).toEpochSecond(ZoneOffset.UTC)),
                    random.nextInt(1_000_000) * 1_000, ZoneOffset.UTC);
            assertEquals(jdk.format(t), SqlTimestamps.text(t), t.toString());
        }
    }
}
