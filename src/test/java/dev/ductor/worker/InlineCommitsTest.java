package dev.ductor.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.queue.TaskLeases;
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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The inline commit strategy, pinned here whatever the switch says (so CI, on the defaults, sees it too): a result the
 * database could not take while it was away is recorded once it answers, not dropped to wait out its lease; and an
 * external worker's report goes the plain way at once, without the look-up of its lease that only a group commit needs.
 */
@QuarkusTest
@TestProfile(InlineCommitsTest.Inline.class)
@Tag("db")
class InlineCommitsTest {

    private static final String TENANT = "inline-commits";
    static volatile boolean away;
    static final AtomicInteger refused = new AtomicInteger();
    static final AtomicInteger leaseLookUps = new AtomicInteger();

    /** Refuses results as an unreachable database would while {@code away}, and counts the lease look-ups. */
    @Alternative
    @ApplicationScoped
    public static class WatchedTaskResults extends TaskResults {

        @Override
        @Transactional
        public void report(StepReport report) {
            if (away) {
                refused.incrementAndGet();
                throw new PersistenceException("could not commit", new SQLException("Connection to localhost refused", "08001"));
            }
            super.report(report);
        }

        @Override
        public Optional<TaskLeases.Held> held(String tenant, long taskId, UUID leaseToken) {
            leaseLookUps.incrementAndGet();
            return super.held(tenant, taskId, leaseToken);
        }

        @Override
        public Map<Long, TaskLeases.Held> heldAll(String tenant, List<Long> ids, List<UUID> tokens) {
            leaseLookUps.incrementAndGet();
            return super.heldAll(tenant, ids, tokens);
        }
    }

    /** Its config overrides are system properties while the app runs, so they beat -Pslow-paths' own. */
    public static class Inline implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("ductor.commit.strategy", "inline");
        }

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(WatchedTaskResults.class);
        }
    }

    @Inject
    Fixtures fixtures;

    @Inject
    CommitStrategy commits;

    @Inject
    ExternalTasks tasks;

    @Test
    void aResultTheDatabaseCouldNotTakeIsRecordedOnceItAnswers() throws Exception {
        assertInstanceOf(InlineCommits.class, commits);
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

    @Test
    void anExternalReportGoesThePlainWayWithoutLookingUpItsLease() throws Exception {
        assertInstanceOf(InlineCommits.class, commits);
        String handler = "ext:inline-" + UUID.randomUUID();
        UUID runId = fixtures.start(TENANT, fixtures.define(TENANT, "{\"nodes\":["
                + "{\"id\":\"a\",\"type\":\"task\",\"handler\":\"" + handler + "\"},"
                + "{\"id\":\"b\",\"type\":\"task\",\"handler\":\"" + handler + "\",\"dependsOn\":[\"a\"]}]}"));
        JsonNode output = fixtures.json("{}");
        int before = leaseLookUps.get();

        ExternalTasks.ClaimedTask a = claim(handler);
        assertEquals(List.of(), tasks.complete(TENANT, a.taskId(), Long.parseLong(a.taskId()), a.leaseToken(), output,
                List.of(handler)), "nothing leased with the answer: the result is applied by a later tick");
        ExternalTasks.ClaimedTask b = claim(handler);
        ExternalTasks.BatchAnswer answer = tasks.reportBatch(TENANT, List.of(new ExternalTasks.BatchedResult(b.taskId(),
                Long.parseLong(b.taskId()), b.leaseToken(), true, output, null, false)), List.of(handler), 1);
        assertEquals("recorded", answer.results().get(0).status());

        fixtures.awaitStatus(runId, "SUCCEEDED");
        assertEquals(before, leaseLookUps.get(), "a report looked its lease up for a group commit that never takes it");
    }

    private ExternalTasks.ClaimedTask claim(String handler) throws InterruptedException {
        List<ExternalTasks.ClaimedTask> claimed = tasks.claim(TENANT, "worker", List.of(handler), null, "inline", 1,
                Duration.ofSeconds(10));
        assertEquals(1, claimed.size(), "one task claimed: " + claimed);
        return claimed.get(0);
    }
}
