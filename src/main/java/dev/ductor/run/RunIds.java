package dev.ductor.run;

import java.time.Instant;
import java.util.UUID;

/**
 * New run ids: UUID version 7 (RFC 9562), the creation millisecond in the first 48 bits and 74 random bits after
 * (those of a {@link UUID#randomUUID}, from the same secure source).
 *
 * <p>Why not version 4: every index keyed on the run id (the run's primary key, the history's {@code (run_id, seq)},
 * the inbox's and the queue's run indexes) took each new run at a random leaf page, so a commit of a few runs
 * dirtied a few pages in each, and after a checkpoint each of them is written to the WAL whole once more. With the
 * time first, PostgreSQL's byte order is creation order: new runs land on the right-hand pages that the last
 * commits already touched.
 */
public final class RunIds {

    private RunIds() {
    }

    public static UUID next(Instant createdAt) {
        UUID random = UUID.randomUUID();
        long timeAndVersion = (createdAt.toEpochMilli() << 16) | 0x7000L | (random.getMostSignificantBits() & 0x0FFFL);
        return new UUID(timeAndVersion, random.getLeastSignificantBits()); // variant bits: randomUUID's, RFC 9562's
    }

    /** The creation millisecond a run id made by {@link #next} carries. */
    public static Instant createdAt(UUID runId) {
        return Instant.ofEpochMilli(runId.getMostSignificantBits() >>> 16);
    }

    /**
     * The smallest version 7 id of the millisecond {@code at}: every run created before {@code at} has a smaller id, so
     * {@code run_id < firstAt(t)} selects them by primary key alone (retention's scan).
     */
    public static UUID firstAt(Instant at) {
        return new UUID((at.toEpochMilli() << 16) | 0x7000L, 0L);
    }
}
