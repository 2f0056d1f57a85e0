package dev.ductor.queue;

import dev.ductor.support.ManualCoordination;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With a million timers pending in the future, both claims still walk an index, never the table. Timing is
 * the benchmark's job ({@code bench/run.sh timers}); here the plan is checked and the timing only printed.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class ClaimPlanTest {

    private static final int PENDING_TIMERS = 1_000_000;
    private static final String TIMER_TENANT = "plan-test";

    @Inject
    EntityManager em;

    @Inject
    QueueRepository queue;


    @Inject

    TaskClaim claim;

    @Inject
    TierWeights weights;

    @Inject
    Clock clock;

    @BeforeEach
    void aMillionFutureTimers() {
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("""
                        INSERT INTO eec_queue_item (kind, tenant, tier, run_id, node_id, task_key, available_at, created_at)
                        SELECT 'TIMER', ?1, 'standard', gen_random_uuid(), 'wait', 'plan-timer:' || g,
                               now() + interval '1 day' + g * interval '1 second', now()
                          FROM generate_series(1, ?2) AS g""")
                .setParameter(1, TIMER_TENANT)
                .setParameter(2, PENDING_TIMERS)
                .executeUpdate());
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("ANALYZE eec_queue_item").executeUpdate());
    }

    @AfterEach
    void removeThem() {
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("DELETE FROM eec_queue_item WHERE tenant = ?1")
                .setParameter(1, TIMER_TENANT).executeUpdate());
    }

    @SuppressWarnings("unchecked")
    private String explain(String sql, Object... params) {
        return QuarkusTransaction.requiringNew().call(() -> {
            var query = em.createNativeQuery("EXPLAIN " + sql);
            for (int i = 0; i < params.length; i += 2) { // name, value, name, value...
                query.setParameter((String) params[i], params[i + 1]);
            }
            return ((List<Object>) query.getResultList()).stream().map(Object::toString).collect(Collectors.joining("\n"));
        });
    }

    @Test
    void theCoordinatorClaimUsesTheClaimIndex() {
        Instant now = clock.instant();
        String plan = explain(QueueRepository.coordinatorClaimSql("'WAKEUP', 'TIMER'"), "now", now, "max", 32,
                "leaseExpiry", now.plusSeconds(30), "owner", "plan");
        System.out.println("coordinator claim plan with " + PENDING_TIMERS + " future timers:\n" + plan);
        assertTrue(plan.contains("ix_queue_item_claim"), plan);
        assertFalse(plan.contains("Seq Scan on eec_queue_item"), plan);

        long started = System.nanoTime();
        QuarkusTransaction.requiringNew().call(() -> queue.claim(List.of(QueueKind.WAKEUP, QueueKind.TIMER), "plan", 32,
                Duration.ofSeconds(30), clock.instant()));
        System.out.printf("coordinator claim with %d future timers took %.2f ms (not asserted)%n", PENDING_TIMERS,
                (System.nanoTime() - started) / 1e6);
    }

    @Test
    void theFairTaskClaimUsesItsPartialIndex() {
        Instant now = clock.instant();
        String plan = explain(TaskClaim.taskClaimSql(new TaskClaim.Filters("noop", null, null).sql(), weights.sqlValues()),
                "now", now, "max", 1, "leaseExpiry", now.plusSeconds(30), "owner", "plan", "handlers", "noop");
        System.out.println("task claim plan with " + PENDING_TIMERS + " future timers:\n" + plan);
        assertTrue(plan.contains("ix_queue_item_fair_tasks"), plan);
        assertFalse(plan.contains("Seq Scan on eec_queue_item"), plan);

        long started = System.nanoTime();
        QuarkusTransaction.requiringNew().call(() -> claim.claimTasks(Set.of("noop"), null, null, "plan", 1,
                Duration.ofSeconds(30), clock.instant(), weights));
        System.out.printf("task claim with %d future timers took %.2f ms (not asserted)%n", PENDING_TIMERS,
                (System.nanoTime() - started) / 1e6);
    }
}
