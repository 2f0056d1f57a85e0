package dev.ductor.worker;

import dev.ductor.run.commit.GroupCommit;
import dev.ductor.run.LocalSteps;
import dev.ductor.run.StepReport;
import dev.ductor.support.Fixtures;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A step that succeeded while the database was away (a failover) keeps its result, and delivers it once the database
 * answers, while its lease lives (finding 9 of the review at 8269a5d: the result was dropped, and 30 s later the reaper
 * recorded "lease expired", which with a single attempt failed the run). Here every commit of a step result fails as
 * an unreachable database would, for a while.
 */
@QuarkusTest
@TestProfile(ResultThroughOutageTest.DatabaseAwayForAWhile.class)
@Tag("db")
class ResultThroughOutageTest {

    private static final String TENANT = "result-outage";
    static volatile boolean away;
    static final AtomicInteger refused = new AtomicInteger();

    private static PersistenceException unreachable() {
        refused.incrementAndGet();
        return new PersistenceException("could not commit", new SQLException("Connection to localhost refused", "08001"));
    }

    @Alternative
    @ApplicationScoped
    public static class AwayGroupCommit extends GroupCommit {

        @Override
        @Transactional(Transactional.TxType.REQUIRES_NEW)
        public Outcome apply(List<StepReport> reports, LocalSteps local) {
            if (away) {
                throw unreachable();
            }
            return super.apply(reports, local);
        }
    }

    @Alternative
    @ApplicationScoped
    public static class AwayTaskResults extends TaskResults {

        @Override
        @Transactional
        public void report(StepReport report) {
            if (away) {
                throw unreachable();
            }
            super.report(report);
        }
    }

    public static class DatabaseAwayForAWhile implements QuarkusTestProfile {

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(AwayGroupCommit.class, AwayTaskResults.class);
        }
    }

    @Inject
    Fixtures fixtures;

    @Test
    void aResultThatCouldNotBeCommittedIsDeliveredOnceTheDatabaseAnswers() throws Exception {
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"}]}");
        away = true;
        UUID runId;
        try {
            runId = fixtures.start(TENANT, workflow);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (refused.get() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(refused.get() >= 1, "the step ran and its result was refused");
            Thread.sleep(1500); // the database stays away a while
        } finally {
            away = false;
        }

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!"SUCCEEDED".equals(fixtures.status(runId)) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals("SUCCEEDED", fixtures.status(runId), "the result was dropped: the step waits out its lease");
        assertEquals(1, fixtures.count("SELECT (node_states -> 'a' ->> 'attempts')::int FROM eec_workflow_run WHERE run_id = ?1",
                runId), "on its first attempt: the step ran once");
    }
}
