package dev.ductor.queue;

import dev.ductor.support.ManualCoordination;
import dev.ductor.support.RolledBack;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.LinkedHashMap;
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
        UUID token = UUID.randomUUID();
        String claim = TaskClaim.taskClaimSql(new TaskClaim.Filters("noop", null, null).sql(), weights.sqlValues());
        // The statements themselves (the owners' constants), never copies: a copy drifts from what runs.
        Map<String, String> plans = RolledBack.call(() -> {
            em.createNativeQuery("ALTER TABLE eec_queue_item DROP CONSTRAINT eec_queue_item_pkey").executeUpdate();
            em.createNativeQuery("SET LOCAL enable_seqscan = off").executeUpdate();
            Map<String, String> explained = new LinkedHashMap<>();
            explained.put("the fair task claim", explain(em, claim, Map.of("now", now, "max", 8,
                    "leaseExpiry", now.plusSeconds(30), "owner", "plan", "handlers", "noop")));
            explained.put("the coordinator claim", explain(em, QueueRepository.coordinatorClaimSql("'WAKEUP', 'TIMER'"),
                    Map.of("now", now, "max", 32, "leaseExpiry", now.plusSeconds(30), "owner", "plan")));
            explained.put("the group commit's delete of leased tasks", explainJdbc(TaskLeases.TAKE_LEASED,
                    new Long[] {1L, 2L, 3L}, new UUID[] {token}));
            explained.put("a lease extension", explain(em, TaskLeases.EXTEND_LEASE,
                    Map.of("until", now, "id", 1L, "token", token, "tenant", "t")));
            explained.put("a report taking its task", explain(em, TaskLeases.TAKE,
                    Map.of("id", 1L, "token", token, "tenant", "t")));
            explained.put("a release", explain(em, TaskLeases.RELEASE, Map.of("now", now, "id", 1L, "token", token)));
            explained.put("an external report's look-up of its task", explain(em, TaskLeases.HELD,
                    Map.of("id", 1L, "token", token, "tenant", "t")));
            explained.put("a batched report's look-up of its tasks", explainJdbc(TaskLeases.HELD_ALL,
                    new Long[] {1L, 2L, 3L}, new UUID[] {token}, "t"));
            explained.put("the reaper's take of expired leases", explain(em, TaskLeases.TAKE_EXPIRED,
                    Map.of("now", now, "max", 32)));
            explained.put("the coordinator's ack", explainOrdinal(QueueRepository.ACK, 1L, token));
            return explained;
        });
        plans.forEach((statement, plan) -> {
            System.out.println(statement + " without the primary key:\n" + plan);
            for (String index : List.of("ix_queue_item_claim", "ix_queue_item_expired_leases")) {
                // These two find their candidates through that index by design; their lookups by id are the question.
                boolean findsCandidatesThere = statement.equals("the coordinator claim") && index.equals("ix_queue_item_claim")
                        || statement.startsWith("the reaper") && index.equals("ix_queue_item_expired_leases");
                if (!findsCandidatesThere) {
                    assertFalse(plan.contains(index), statement + " reached rows by id through " + index + ":\n" + plan);
                }
            }
            assertFalse(plan.lines().anyMatch(line -> line.contains("Index Cond:") && line.contains("(id = ")),
                    statement + " looked rows up by id through an index other than the primary key:\n" + plan);
        });
    }

    /** The plan of a statement with JDBC parameters (arrays bound as the owner binds them), in this transaction. */
    private String explainJdbc(String sql, Long[] ids, UUID[] tokens, Object... more) {
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + sql)) {
                explain.setArray(1, connection.createArrayOf("bigint", ids));
                explain.setArray(2, connection.createArrayOf("uuid", tokens));
                for (int i = 0; i < more.length; i++) {
                    explain.setObject(3 + i, more[i]);
                }
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
                return plan.toString();
            }
        });
    }

    @SuppressWarnings("unchecked")
    private String explainOrdinal(String sql, Object... params) {
        var query = em.createNativeQuery("EXPLAIN " + sql);
        for (int i = 0; i < params.length; i++) {
            query.setParameter(i + 1, params[i]);
        }
        return String.join("\n", ((List<Object>) query.getResultList()).stream().map(Object::toString).toList());
    }
}
