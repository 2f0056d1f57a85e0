package dev.ductor.queue;

import dev.ductor.database.PlannerSettings;
import dev.ductor.support.ManualCoordination;
import dev.ductor.support.RolledBack;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static dev.ductor.support.RolledBack.explain;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With a backlog of due tasks the queue's statistics have not seen yet (the usual case: the table empties and refills
 * between autovacuum passes), the fair claim still walks its partial index in order and stops at its limits. Under
 * chain3 it ran as bitmap scans that read every entry of an 11,304-entry backlog to return one flow and eight tasks,
 * each claim slower as the backlog grew ({@link PlannerSettings} turns bitmap scans off for that reason).
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class ClaimBacklogPlanTest {

    private static final int BACKLOG = 20_000;

    @Inject
    EntityManager em;

    @Inject
    PlannerSettings plannerSettings;

    @Inject
    TierWeights weights;

    @Test
    void theFairClaimReadsABacklogInOrderNotWhole() throws Exception {
        Instant now = Instant.now();
        String plan = RolledBack.call(() -> {
            em.createNativeQuery("""
                            INSERT INTO eec_queue_item (kind, tenant, tier, run_id, node_id, attempt, handler, available_at, created_at)
                            SELECT 'TASK', 'backlog-plan', 'standard', gen_random_uuid(), 'step', 1, 'noop',
                                   now() - interval '1 hour' + g * interval '1 millisecond', now()
                              FROM generate_series(1, ?1) g""")
                    .setParameter(1, BACKLOG)
                    .executeUpdate();
            plannerSettings.forThisTransaction();
            return explain(em, TaskClaim.taskClaimSql(new TaskClaim.Filters("noop", null, null).sql(), weights.sqlValues()),
                    Map.of("now", now, "max", 8, "leaseExpiry", now.plusSeconds(30), "owner", "plan", "handlers", "noop"));
        });
        System.out.println("fair claim plan over a backlog of " + BACKLOG + " unanalyzed tasks:\n" + plan);
        assertTrue(plan.contains("Index Scan using ix_queue_item_fair_tasks"), plan);
        assertFalse(plan.contains("Bitmap"), "a bitmap scan reads the whole backlog before its LIMIT:\n" + plan);
        assertFalse(plan.contains("Seq Scan on eec_queue_item"), plan);
    }
}
