package dev.ductor.run;

import dev.ductor.database.PlannerSettings;
import dev.ductor.support.ManualCoordination;
import dev.ductor.support.RolledBack;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The group commit's one UPDATE of many runs ({@link RunRows#update}) locks their rows in the order of its arrays,
 * which the caller sorts by run id, the lock order of every multi-run writer (two commits waiting on each other's
 * rows would deadlock). That holds when the plan walks the arrays and looks each run up by its key: a nested loop
 * over the unnest, the primary key inside. A hash or merge join would lock in the table's or the index's order.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class RunUpdateLockOrderPlanTest {

    @Inject
    EntityManager em;

    @Inject
    PlannerSettings plannerSettings;

    @Test
    void theManyRunUpdateLocksRowsInTheOrderOfItsArrays() throws Exception {
        String sql = RunRows.UPDATE;
        Map<String, Object> params = new LinkedHashMap<>();
        Object[] values = {OffsetDateTime.now(), "{" + UUID.randomUUID() + "," + UUID.randomUUID() + "}", "{1,2}",
                "{RUNNING,RUNNING}", "{standard,standard}", "{1,1}", "{\"{}\",\"{}\"}", "{a,b}", "{3,4}", "{NULL,NULL}"};
        for (Object value : values) {
            String name = "p" + (params.size() + 1);
            sql = sql.replaceFirst("\\?", ":" + name);
            params.put(name, value);
        }
        String statement = sql;
        String plan = RolledBack.call(() -> {
            plannerSettings.forThisTransaction(); // as the group commit runs it
            return RolledBack.explain(em, statement, params);
        });
        System.out.println("the group commit's UPDATE of many runs:\n" + plan);
        assertTrue(plan.contains("Nested Loop"), "not a nested loop over the arrays:\n" + plan);
        int arrays = plan.indexOf("Function Scan on w");
        int runs = plan.indexOf("Index Scan using eec_workflow_run_pkey");
        assertTrue(arrays >= 0 && runs > arrays, "the arrays are not the outer side, each run looked up by key inside:\n" + plan);
        assertFalse(plan.contains("Hash") || plan.contains("Merge") || plan.contains("Sort"),
                "a join or sort that reorders the rows before they are locked:\n" + plan);
    }
}
