package dev.ductor.run;

import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A commit that leaves a run RUNNING is a HOT update (V11): it changes no column any index of the run table holds,
 * so PostgreSQL writes the new row version beside the old one and no index entry. An index on a column the commit
 * changes (as {@code updated_at} once was, for the watchdog) would make every commit write into every index again;
 * this test is where that shows. It reads PostgreSQL's own count of this transaction's HOT updates.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class RunRowsHotUpdateTest {

    private static final String TENANT = "hot-update";

    @Inject
    Fixtures fixtures;

    @Inject
    RunRows rows;

    @Inject
    EntityManager em;

    @Inject
    Clock clock;

    @Test
    void aCommitThatKeepsTheRunRunningWritesNoIndex() {
        UUID runId = fixtures.start(TENANT, fixtures.chain(TENANT, 2, "ext:nobody"));

        long[] updatedAndHot = QuarkusTransaction.requiringNew().call(() -> {
            RunRows.Row row = rows.lock(List.of(runId)).get(runId);
            assertEquals("RUNNING", row.status());
            // What a step's commit changes on a run that goes on: its nodes, its seq, its seal, its output.
            String nodeStates = row.nodeStates().replaceFirst("PENDING", "RUNNING");
            assertNotEquals(row.nodeStates(), nodeStates, "the write changes the node states");
            long[] before = updatedAndHot();
            boolean[] won = rows.update(List.of(new RunRows.Write(runId, row.version(), row.status(), row.tier(), row.revision(), nodeStates,
                    "changed-" + row.checksum(), row.lastSeq() + 1, "{\"a\": 1}")), clock.instant().plusSeconds(1));
            assertArrayEquals(new boolean[] {true}, won);
            long[] after = updatedAndHot();
            return new long[] {after[0] - before[0], after[1] - before[1]};
        });

        assertEquals(1, updatedAndHot[0], "the commit updated the run's row once");
        assertEquals(1, updatedAndHot[1], "and as a HOT update: no index holds a column it changed");
    }

    /** PostgreSQL's count of this transaction's updates and HOT updates of the run table (read as a difference). */
    private long[] updatedAndHot() {
        Object[] counts = (Object[]) em.createNativeQuery("""
                SELECT pg_stat_get_xact_tuples_updated(CAST('eec_workflow_run' AS regclass)),
                       pg_stat_get_xact_tuples_hot_updated(CAST('eec_workflow_run' AS regclass))""")
                .getSingleResult();
        return new long[] {((Number) counts[0]).longValue(), ((Number) counts[1]).longValue()};
    }
}
