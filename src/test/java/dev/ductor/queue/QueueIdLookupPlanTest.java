package dev.ductor.queue;

import dev.ductor.support.ManualCoordination;
import dev.ductor.support.RolledBack;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.ductor.support.RolledBack.explain;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A queue row looked up by id can only be reached through the primary key (V12). While the claim index ended in
 * {@code id}, a stale plan read that whole index for each id of the fair claim's row locks and UPDATE (3,475 buffers
 * for 8 tasks under chain3). The planner's choice depends on statistics no test controls, so this asks the question
 * it can answer for certain: with the primary key gone (inside a transaction that is rolled back) and sequential
 * scans costed out, which other index would PostgreSQL use for those lookups? It must find none.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class QueueIdLookupPlanTest {

    @Inject
    EntityManager em;

    @Inject
    TierWeights weights;

    @Test
    void noIndexButThePrimaryKeyServesALookupById() throws Exception {
        Instant now = Instant.now();
        String claim = TaskClaim.taskClaimSql(new TaskClaim.Filters("noop", null, null).sql(), weights.sqlValues());
        Map<String, String> plans = RolledBack.call(() -> {
            em.createNativeQuery("ALTER TABLE eec_queue_item DROP CONSTRAINT eec_queue_item_pkey").executeUpdate();
            em.createNativeQuery("SET LOCAL enable_seqscan = off").executeUpdate();
            return Map.of(
                    "the fair task claim", explain(em, claim, Map.of("now", now, "max", 8, "leaseExpiry", now.plusSeconds(30),
                            "owner", "plan", "handlers", "noop")),
                    "the group commit's delete of leased tasks", explain(em,
                            "DELETE FROM eec_queue_item WHERE id = ANY(CAST(:ids AS bigint[]))"
                                    + " AND lease_token = ANY(CAST(:tokens AS uuid[])) RETURNING id",
                            Map.of("ids", "{1,2,3}", "tokens", "{" + UUID.randomUUID() + "}")),
                    "a lease extension", explain(em, "UPDATE eec_queue_item SET available_at = :until WHERE id = :id"
                            + " AND lease_token = CAST(:token AS uuid)", Map.of("until", now, "id", 1L,
                            "token", UUID.randomUUID().toString())));
        });
        plans.forEach((statement, plan) -> {
            System.out.println(statement + " without the primary key:\n" + plan);
            for (String index : List.of("ix_queue_item_claim", "ix_queue_item_expired_leases")) {
                assertFalse(plan.contains(index), statement + " reached rows by id through " + index + ":\n" + plan);
            }
            assertFalse(plan.lines().anyMatch(line -> line.contains("Index Cond:") && line.contains("(id = ")),
                    statement + " looked rows up by id through an index other than the primary key:\n" + plan);
        });
    }
}
