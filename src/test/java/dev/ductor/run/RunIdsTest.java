package dev.ductor.run;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RunIdsTest {

    @Test
    void aRunIdIsAVersion7UuidCarryingItsCreationMillisecond() {
        Instant at = Instant.parse("2026-12-04T09:30:00.123456Z");
        UUID id = RunIds.next(at);
        assertEquals(7, id.version());
        assertEquals(2, id.variant(), "the RFC's variant (binary 10)");
        assertEquals(at.toEpochMilli(), id.getMostSignificantBits() >>> 16);
        assertEquals(Instant.parse("2026-12-04T09:30:00.123Z"), RunIds.createdAt(id), "read back to the millisecond");
    }

    /** PostgreSQL compares uuids byte by byte, as unsigned big-endian: the order of their string forms. */
    @Test
    void idsOfLaterMillisecondsSortAfterEarlierOnesAsPostgresqlComparesThem() {
        Instant start = Instant.parse("2026-12-04T09:30:00Z");
        List<String> ids = new ArrayList<>();
        for (int ms = 0; ms < 2000; ms += 7) {
            ids.add(RunIds.next(start.plusMillis(ms)).toString());
        }
        List<String> sorted = new ArrayList<>(ids);
        sorted.sort(null);
        assertEquals(sorted, ids);
    }

    @Test
    void idsOfOneMillisecondStillDifferInTheirRandomBits() {
        Instant at = Instant.parse("2026-12-04T09:30:00Z");
        Set<UUID> ids = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            ids.add(RunIds.next(at));
        }
        assertEquals(100_000, ids.size());
        assertTrue(ids.stream().allMatch(id -> id.version() == 7 && id.variant() == 2));
    }
}
