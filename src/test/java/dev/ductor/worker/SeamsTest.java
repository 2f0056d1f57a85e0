package dev.ductor.worker;

import dev.ductor.config.DuctorConfig;
import dev.ductor.run.LocalDispatch;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import dev.ductor.support.FastPaths;
import dev.ductor.support.Fixtures;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * The settings choose the strategies behind the two seams, and the paths taken are the chosen ones. Runs under the
 * defaults (grouped, eager) and under {@code -Pslow-paths} (inline, queue), so each position of each switch is seen.
 */
@QuarkusTest
@Tag("api")
class SeamsTest {

    @Inject
    DuctorConfig config;

    @Inject
    CommitStrategy commits;

    @Inject
    LocalDispatch dispatch;

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    @Test
    void theSettingsChooseTheStrategies() {
        // -Pslow-paths sets them as system properties: the server under test must have read them.
        String commit = System.getProperty("ductor.commit.strategy");
        String local = System.getProperty("ductor.dispatch.local");
        assertEquals(commit == null ? "grouped" : commit, config.commit().strategy().name().toLowerCase());
        assertEquals(local == null ? "eager" : local, config.dispatch().local().name().toLowerCase());
        switch (config.commit().strategy()) {
            case GROUPED -> assertInstanceOf(GroupedCommits.class, commits);
            case INLINE -> assertInstanceOf(InlineCommits.class, commits);
        }
        switch (config.dispatch().local()) {
            case EAGER -> assertInstanceOf(EagerDispatch.class, dispatch);
            case QUEUE -> assertInstanceOf(QueuedDispatch.class, dispatch);
        }
    }

    /**
     * Grouped: an in-process step's result is applied in a group commit, and never enters the run's inbox (no race here
     * to lose). Inline: it enters the inbox, and a coordinator tick consumes it.
     */
    @Test
    void anInProcessResultIsAppliedByTheChosenCommitStrategy() {
        Api api = new Api(issuer);
        String runId = api.start(api.define(Api.definition(Api.task("echo", "echo"))));
        assertEquals("SUCCEEDED", api.awaitStatus(runId, "SUCCEEDED"));
        long throughInbox = fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND kind = 'TASK_RESULT'"
                + " AND consumed_at IS NOT NULL", UUID.fromString(runId));
        assertEquals(FastPaths.reportsCommitBeforeTheAnswer(config) ? 0 : 1, throughInbox,
                "the result's way to its run under " + config.commit().strategy());
    }

    /**
     * Eager (with grouped commits): a report's {@code next} brings the run's next step, leased to its worker. Queue (or
     * inline): the answer brings none, and the step is claimable from the queue.
     */
    @Test
    void aReportsNextFollowsTheChosenDispatch() {
        Api api = new Api(issuer);
        String handler = "ext:seam-" + UUID.randomUUID();
        String runId = api.start(api.define("{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"" + handler + "\"},"
                + "{\"id\":\"b\",\"type\":\"task\",\"handler\":\"" + handler + "\",\"dependsOn\":[\"a\"]}]}"));
        Map<String, Object> a = claim(api, handler);
        assertEquals("a", a.get("node"));
        List<Map<String, Object>> next = api.as("worker").body("{\"leaseToken\":\"" + a.get("leaseToken")
                        + "\",\"output\":{},\"next\":{\"handlers\":[\"" + handler + "\"]}}")
                .post("/api/v1/tasks/{id}/complete", a.get("taskId")).then().statusCode(200).extract().jsonPath().getList("next");
        Map<String, Object> b;
        if (FastPaths.reportsLeaseNext(config)) {
            assertEquals(1, next.size(), "leased with the answer: " + next);
            b = next.get(0);
        } else {
            assertEquals(List.of(), next, "nothing leased with the answer");
            b = claim(api, handler);
        }
        assertEquals(runId, b.get("runId"));
        assertEquals("b", b.get("node"));
        api.as("worker").body("{\"leaseToken\":\"" + b.get("leaseToken") + "\",\"output\":{}}")
                .post("/api/v1/tasks/{id}/complete", b.get("taskId")).then().statusCode(200);
        assertEquals("SUCCEEDED", api.awaitStatus(runId, "SUCCEEDED"));
    }

    private static Map<String, Object> claim(Api api, String handler) {
        List<Map<String, Object>> tasks = api.as("worker")
                .body("{\"handlers\":[\"" + handler + "\"],\"workerId\":\"seams\",\"max\":1,\"waitSeconds\":10}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$");
        assertEquals(1, tasks.size(), "one task claimed: " + tasks);
        return tasks.get(0);
    }
}
