package dev.ductor.run.read;

import dev.ductor.support.ManualCoordination;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With a million finished runs, a quarter of them tagged, the run list's tag filter reads the partial GIN index of V17, never
 * the table nor the tenant's whole list. Timing is the benchmark's job; here the plan is checked and the timing only
 * printed.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class RunTagPlanTest {

    private static final int RUNS = 1_000_000;
    private static final String TENANT = "tag-plan";
    /** Every fourth run is tagged, for one of this many customers: a customer has about 12 runs. */
    private static final int CUSTOMERS = 20_000;

    @Inject
    EntityManager em;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    RunQueries queries;

    @BeforeEach
    void aMillionRunsAQuarterOfThemTagged() {
        long started = System.nanoTime();
        QuarkusTransaction.requiringNew().timeout(600).run(() -> {
            withoutTriggers();
            em.createNativeQuery("""
                        INSERT INTO eec_workflow_run (run_id, tenant, workflow_name, workflow_revision, status, node_states,
                                                      last_transition_seq, state_checksum, created_at, updated_at, tags)
                        SELECT gen_random_uuid(), ?1, 'plan', 1, CASE WHEN g % 3 = 0 THEN 'FAILED' ELSE 'SUCCEEDED' END,
                               '{}', 1, 'none', now() - g * interval '1 second', now() - g * interval '1 second',
                               CASE WHEN g % 4 = 0 THEN jsonb_build_object('customer', 'c-' || (g / 4) % ?2,
                                                                           'channel', CASE WHEN g % 8 = 0 THEN 'web' ELSE 'phone' END)
                               END
                          FROM generate_series(1, ?3) AS g""")
                .setParameter(1, TENANT)
                .setParameter(2, CUSTOMERS)
                .setParameter(3, RUNS)
                .executeUpdate();
        });
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("ANALYZE eec_workflow_run").executeUpdate());
        System.out.printf("%d runs inserted and analysed in %.1f s%n", RUNS, (System.nanoTime() - started) / 1e9);
    }

    @AfterEach
    void removeThem() {
        QuarkusTransaction.requiringNew().timeout(600).run(() -> {
            withoutTriggers();
            em.createNativeQuery("DELETE FROM eec_workflow_run WHERE tenant = ?1").setParameter(1, TENANT).executeUpdate();
        });
    }

    /**
     * These runs have no history, inbox or watcher: the change feed's trigger and the foreign-key checks of the tables
     * that reference runs (one lookup each of a million rows) would only slow the fixture down, so this transaction
     * skips them.
     */
    private void withoutTriggers() {
        em.createNativeQuery("SET LOCAL session_replication_role = replica").executeUpdate();
    }

    @Test
    void theTagFilterOfTheRunListUsesTheTagIndex() throws Exception {
        RunTagFilter oneTag = RunTagFilter.of(List.of("customer:c-4242"), "tag");
        String plan = explain(RunQueries.listStatement(TENANT, null, null, null, oneTag, null, null, RunQueries.DEFAULT_LIMIT + 1));
        System.out.println("run list by one tag, " + RUNS + " runs:\n" + plan);
        assertTrue(plan.contains("ix_workflow_run_tags"), plan);
        assertFalse(plan.contains("Seq Scan on eec_workflow_run"), plan);

        RunTagFilter twoTags = RunTagFilter.of(List.of("customer:c-4242", "channel:web"), "tag");
        String planOfTwo = explain(RunQueries.listStatement(TENANT, "plan", "FAILED", null, twoTags, null, null,
                RunQueries.DEFAULT_LIMIT + 1));
        System.out.println("run list by two tags, workflow and status, " + RUNS + " runs:\n" + planOfTwo);
        assertTrue(planOfTwo.contains("ix_workflow_run_tags"), planOfTwo);
        assertFalse(planOfTwo.contains("Seq Scan on eec_workflow_run"), planOfTwo);

        long started = System.nanoTime();
        RunPage page = QuarkusTransaction.requiringNew().call(() ->
                queries.list(TENANT, null, null, null, oneTag, null, RunQueries.DEFAULT_LIMIT, null));
        System.out.printf("run list by one tag among %d runs took %.2f ms (not asserted)%n", RUNS,
                (System.nanoTime() - started) / 1e6);
        long customersRuns = IntStream.rangeClosed(1, RUNS).filter(g -> g % 4 == 0 && (g / 4) % CUSTOMERS == 4242).count();
        assertEquals(customersRuns, page.items().size(), "all of c-4242's runs, and only those");
        page.items().forEach(run -> assertEquals("c-4242", run.tags().get("customer"), run.toString()));
    }

    /** EXPLAIN of the statement with its parameters bound as the list binds them. */
    private String explain(RunQueries.Statement statement) throws Exception {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement explain = connection.prepareStatement("EXPLAIN " + statement.sql())) {
            for (int i = 0; i < statement.parameters().size(); i++) {
                explain.setObject(i + 1, statement.parameters().get(i));
            }
            List<String> lines = new ArrayList<>();
            try (ResultSet rs = explain.executeQuery()) {
                while (rs.next()) {
                    lines.add(rs.getString(1));
                }
            }
            return String.join("\n", lines);
        }
    }
}
