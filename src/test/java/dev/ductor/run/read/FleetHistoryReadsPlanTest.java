package dev.ductor.run.read;

import dev.ductor.support.ManualCoordination;
import dev.ductor.support.RolledBack;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fleet history's runs per minute and the runs list's search by part of an id read a bounded range of one
 * tenant's runs through {@code ix_workflow_run_tenant_created}, never the whole run table. The planner's choice on a
 * small table depends on statistics no test controls, so this asks what it can answer for certain: with sequential
 * scans costed out, is the created_at range an index condition of that index? A predicate the index cannot serve
 * (a function of created_at, or a bound on updated_at alone, which has no index: V11) would leave a full scan.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class FleetHistoryReadsPlanTest {

    @Inject
    EntityManager em;

    @Test
    void theRunsPerMinuteReadOneTenantsCreatedAtRangeThroughItsIndex() throws Exception {
        Instant to = Instant.now().truncatedTo(ChronoUnit.MINUTES).plusSeconds(60);
        Instant from = to.minusSeconds(3600);
        String plan = RolledBack.call(() -> {
            em.createNativeQuery("SET LOCAL enable_seqscan = off").executeUpdate();
            return explain(em.createNativeQuery("EXPLAIN " + RunThroughput.PER_MINUTE)
                    .setParameter(1, "plan").setParameter(2, from.minus(RunThroughput.FINISH_LOOKBACK))
                    .setParameter(3, from).setParameter(4, to).getResultList());
        });
        System.out.println("runs per minute:\n" + plan);
        assertTrue(plan.contains("ix_workflow_run_tenant_created"), plan);
        assertTrue(plan.matches("(?s).*Index Cond: .*tenant = .*created_at >= .*"), "the created_at range bounds the index read:\n" + plan);
        assertFalse(plan.contains("Seq Scan on eec_workflow_run"), plan);
    }

    @Test
    void theSearchByPartOfARunIdReadsTheTenantsNewestRunsThroughItsIndex() throws Exception {
        String plan = RolledBack.call(() -> {
            em.createNativeQuery("SET LOCAL enable_seqscan = off").executeUpdate();
            return explain(em.createNativeQuery("EXPLAIN " + RunQueries.NEWEST_RUN_IDS)
                    .setParameter(1, "plan").setParameter(2, RunQueries.RUN_ID_SEARCH_WINDOW).getResultList());
        });
        System.out.println("newest run ids:\n" + plan);
        assertTrue(plan.contains("Limit"), plan);
        assertTrue(plan.contains("ix_workflow_run_tenant_created"), plan);
        assertFalse(plan.contains("Sort"), "read in index order, not sorted: " + plan);
    }

    private static String explain(List<?> rows) {
        return rows.stream().map(Object::toString).collect(Collectors.joining("\n"));
    }
}
