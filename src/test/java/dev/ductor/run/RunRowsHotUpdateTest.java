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
            RunRows.Row row = rows.load(List.of(runId)).rows().get(runId);
            assertEquals("RUNNING", row.status());
            boolean[] won = rows.update(List.of(new RunRows.Write(runId, row.version(), row.status(), row.nodeStates(),
                    row.checksum(), row.lastSeq(), row.output())), clock.instant().plusSeconds(1));
            assertArrayEquals(new boolean[] {true}, won);
            Object[] counts = (Object[]) em.createNativeQuery("""
                    SELECT pg_stat_get_xact_tuples_updated(CAST('eec_workflow_run' AS regclass)),
                           pg_stat_get_xact_tuples_hot_updated(CAST('eec_workflow_run' AS regclass))""")
                    .getSingleResult();
            return new long[] {((Number) counts[0]).longValue(), ((Number) counts[1]).longValue()};
        });

        assertEquals(1, updatedAndHot[0], "the commit updated the run's row once");
        assertEquals(1, updatedAndHot[1], "and as a HOT update: no index holds a column it changed");
    }
}
