package dev.ductor.api;

import dev.ductor.config.DuctorConfig;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.FastPaths;
import dev.ductor.support.Fixtures;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A worker in any language, through /api/v1/tasks: claim, heartbeat, complete, fail, fenced by lease tokens. */
@QuarkusTest
@Tag("api")
class ExternalWorkerApiTest {

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    @Inject
    DuctorConfig config;

    private Map<String, Object> claimOne(Api api, String handler) {
        List<Map<String, Object>> tasks = api.as("worker")
                .body("{\"handlers\":[\"" + handler + "\"],\"workerId\":\"w1\",\"max\":1,\"waitSeconds\":10}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$");
        assertEquals(1, tasks.size(), "one task claimed: " + tasks);
        return tasks.get(0);
    }

    /** When the task's lease runs out, as stored (epoch ms). */
    private long leaseEnd(String taskId) {
        return fixtures.count("SELECT CAST(extract(epoch FROM available_at) * 1000 AS bigint) FROM eec_queue_item"
                + " WHERE id = ?1 AND lease_token IS NOT NULL", Long.parseLong(taskId));
    }

    private String chargeWorkflow(Api api, String handler, int maxAttempts) {
        return api.define("{\"nodes\":[{\"id\":\"charge\",\"type\":\"task\",\"handler\":\"" + handler + "\","
                + "\"input\":{\"amount\":5},\"retry\":{\"maxAttempts\":" + maxAttempts + "}}]}");
    }

    @Test
    void aWorkerClaimsHeartbeatsAndCompletesATaskAndARepeatedCompletionIsAppliedOnce() throws Exception {
        Api api = new Api(issuer);
        String handler = "ext:charge-" + UUID.randomUUID();
        String runId = api.start(chargeWorkflow(api, handler, 1));

        Map<String, Object> task = claimOne(api, handler);
        assertEquals(runId, task.get("runId"));
        assertEquals("charge", task.get("node"));
        assertEquals(1, task.get("attempt"));
        assertEquals(5, ((Map<?, ?>) task.get("input")).get("amount"));
        String taskId = (String) task.get("taskId");
        String token = (String) task.get("leaseToken");

        long leaseEnd = leaseEnd(taskId);
        Thread.sleep(300);
        api.as("worker").body("{\"leaseToken\":\"" + token + "\"}").post("/api/v1/tasks/{id}/heartbeat", taskId)
                .then().statusCode(200);
        long extended = leaseEnd(taskId);
        assertTrue(extended >= leaseEnd + 250, "the heartbeat 300 ms later moved the lease's end from " + leaseEnd
                + " to " + extended + " (epoch ms)");
        String completion = "{\"leaseToken\":\"" + token + "\",\"output\":{\"charged\":5}}";
        api.as("worker").body(completion).post("/api/v1/tasks/{id}/complete", taskId).then().statusCode(200);
        api.as("worker").body(completion).post("/api/v1/tasks/{id}/complete", taskId).then().statusCode(200);

        assertEquals("SUCCEEDED", api.awaitStatus(runId, "SUCCEEDED"));
        assertEquals(5, (Integer) api.run(runId).path("nodes.charge.output.charged"));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND kind = 'TASK_RESULT'",
                UUID.fromString(runId)), "one result recorded for the attempt");
    }

    @Test
    void aCompletionWithAStaleTokenIs409AndChangesNothing() throws Exception {
        Api api = new Api(issuer);
        String handler = "ext:stale-" + UUID.randomUUID();
        String runId = api.start(chargeWorkflow(api, handler, 1));
        Map<String, Object> task = claimOne(api, handler);
        long version = fixtures.version(UUID.fromString(runId));

        Response stale = api.as("worker").body("{\"leaseToken\":\"" + UUID.randomUUID() + "\",\"output\":{}}")
                .post("/api/v1/tasks/{id}/complete", task.get("taskId"));
        assertEquals(409, stale.statusCode());
        assertTrue(stale.contentType().startsWith("application/problem+json"));
        api.as("worker").body("{\"leaseToken\":\"" + UUID.randomUUID() + "\"}")
                .post("/api/v1/tasks/{id}/heartbeat", task.get("taskId")).then().statusCode(409);

        Thread.sleep(300);
        assertEquals(version, fixtures.version(UUID.fromString(runId)));
        assertEquals("RUNNING", api.run(runId).path("nodes.charge.state"));
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1", UUID.fromString(runId)));
    }

    @Test
    void aRetryableFailureDispatchesTheNextAttemptAndTheOldTokenIsFencedOff() throws Exception {
        Api api = new Api(issuer);
        String handler = "ext:flaky-" + UUID.randomUUID();
        String runId = api.start(chargeWorkflow(api, handler, 2));
        Map<String, Object> first = claimOne(api, handler);
        String firstToken = (String) first.get("leaseToken");
        api.as("worker").body("{\"leaseToken\":\"" + firstToken + "\",\"error\":\"card declined\",\"retryable\":true}")
                .post("/api/v1/tasks/{id}/fail", first.get("taskId")).then().statusCode(200);

        Map<String, Object> second = claimOne(api, handler);
        assertEquals(2, second.get("attempt"));
        api.as("worker").body("{\"leaseToken\":\"" + firstToken + "\",\"output\":{}}")
                .post("/api/v1/tasks/{id}/complete", second.get("taskId")).then().statusCode(409);
        api.as("worker").body("{\"leaseToken\":\"" + second.get("leaseToken") + "\",\"error\":\"still declined\",\"retryable\":true}")
                .post("/api/v1/tasks/{id}/fail", second.get("taskId")).then().statusCode(200);

        assertEquals("FAILED", api.awaitStatus(runId, "FAILED"));
        JsonPath run = api.run(runId).jsonPath();
        assertEquals(2, run.getInt("nodes.charge.attempts"));
        assertEquals("still declined", run.getString("nodes.charge.error"));
    }

    @Test
    void aLongPollReturnsAsSoonAsATaskIsQueued() throws Exception {
        Api api = new Api(issuer);
        String handler = "ext:later-" + UUID.randomUUID();
        String workflow = chargeWorkflow(api, handler, 1);
        CompletableFuture<List<Object>> poll = CompletableFuture.supplyAsync(() -> api.as("worker")
                .body("{\"handlers\":[\"" + handler + "\"],\"workerId\":\"w\",\"max\":1,\"waitSeconds\":20}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$"));
        awaitAClaimWaiting(poll);
        long queued = System.nanoTime();
        api.start(workflow);
        assertEquals(1, poll.get(20, TimeUnit.SECONDS).size());
        // "As soon as": the poll is woken by the commit (or its 250 ms re-check), not by its 20 s running out. 5 s is
        // generous for a loaded 2-core machine and far below a poll that merely waited.
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - queued);
        assertTrue(waitedMs < 5000, "the claim returned " + waitedMs + " ms after the task was queued");
    }

    /**
     * Waits until the server holds a claim that found nothing and waits for work: a request thread parked in
     * {@code ExternalTasks.claim}'s wait on its queue signal. Only then is a task queued "after" the poll began.
     */
    private static void awaitAClaimWaiting(CompletableFuture<?> poll) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline && !poll.isDone()) {
            for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
                List<StackTraceElement> frames = List.of(thread.getValue());
                boolean inClaim = frames.stream().anyMatch(f -> f.getClassName().equals("dev.ductor.worker.ExternalTasks")
                        && f.getMethodName().equals("claim"));
                boolean waiting = frames.stream().anyMatch(f -> f.getClassName().startsWith("dev.ductor.queue.QueueSignal")
                        && f.getMethodName().equals("await"));
                if (inClaim && waiting && thread.getKey().getState() == Thread.State.TIMED_WAITING) {
                    return;
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the claim never waited for work" + (poll.isDone() ? ": it returned " + poll.join() : ""));
    }

    /**
     * A draining worker hands back a task it has not started: it is queued again at once, on the same attempt, and the
     * old token holds nothing any more (a late report with it is 409, as is a second release).
     */
    @Test
    void aReleasedTaskIsQueuedAgainWithoutSpendingAnAttemptAndItsOldTokenIsFencedOff() throws Exception {
        Api api = new Api(issuer);
        String handler = "ext:release-" + UUID.randomUUID();
        String runId = api.start(chargeWorkflow(api, handler, 1));
        Map<String, Object> first = claimOne(api, handler);
        String taskId = (String) first.get("taskId");
        String oldToken = (String) first.get("leaseToken");

        api.as("worker").body("{\"leaseToken\":\"" + oldToken + "\"}").post("/api/v1/tasks/{id}/release", taskId)
                .then().statusCode(200);
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE id = ?1 AND lease_token IS NOT NULL",
                Long.parseLong(taskId)), "the task is unleased");
        Api.problem(api.as("worker").body("{\"leaseToken\":\"" + oldToken + "\",\"output\":{}}")
                .post("/api/v1/tasks/{id}/complete", taskId), 409);
        Api.problem(api.as("worker").body("{\"leaseToken\":\"" + oldToken + "\"}").post("/api/v1/tasks/{id}/release", taskId), 409);
        Api.problem(api.as("worker").body("{\"leaseToken\":\"" + oldToken + "\"}").post("/api/v1/tasks/{id}/heartbeat", taskId), 409);

        Map<String, Object> again = claimOne(api, handler);
        assertEquals(taskId, again.get("taskId"), "the same task, queued again");
        assertEquals(1, again.get("attempt"), "the same attempt: none was spent");
        api.as("worker").body("{\"leaseToken\":\"" + again.get("leaseToken") + "\",\"output\":{\"ok\":true}}")
                .post("/api/v1/tasks/{id}/complete", taskId).then().statusCode(200);
        assertEquals("SUCCEEDED", api.awaitStatus(runId, "SUCCEEDED"), "a node of maxAttempts 1 still succeeds");
        assertEquals(1, api.run(runId).jsonPath().getInt("nodes.charge.attempts"), "one attempt counted");
    }

    @Test
    void anotherTenantsReleaseIs404() {
        Api owner = new Api(issuer);
        Api stranger = new Api(issuer);
        String handler = "ext:release-other-" + UUID.randomUUID();
        owner.start(chargeWorkflow(owner, handler, 1));
        Map<String, Object> task = claimOne(owner, handler);
        Api.problem(stranger.as("worker").body("{\"leaseToken\":\"" + task.get("leaseToken") + "\"}")
                .post("/api/v1/tasks/{id}/release", task.get("taskId")), 404);
        owner.as("client").body("{}").post("/api/v1/tasks/{id}/release", task.get("taskId")).then().statusCode(403);
    }

    /**
     * A long poll whose client hangs up ends, and the task queued after it is not leased to that client (before, the poll
     * went on, woke on the commit and leased the task to nobody, to wait out its lease and spend an attempt).
     */
    @Test
    void aLongPollWhoseClientHangsUpEndsAndLeasesNothingToIt() throws Exception {
        Api api = new Api(issuer);
        String handler = "ext:hangup-" + UUID.randomUUID();
        String workflow = chargeWorkflow(api, handler, 1);
        URI base = URI.create(io.restassured.RestAssured.baseURI);
        String body = "{\"handlers\":[\"" + handler + "\"],\"workerId\":\"gone\",\"max\":1,\"waitSeconds\":20}";
        try (Socket socket = new Socket(base.getHost(), io.restassured.RestAssured.port)) {
            OutputStream out = socket.getOutputStream();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            out.write(("POST /api/v1/tasks/claim HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Authorization: Bearer " + api.token("worker") + "\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.write(bytes);
            out.flush();
            awaitAClaimWaiting(new CompletableFuture<>());
        } // hung up, the poll still waiting
        Thread.sleep(300); // the server sees the connection close
        String runId = api.start(workflow);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline && aClaimIsWaiting()) {
            Thread.sleep(20);
        }
        assertFalse(aClaimIsWaiting(), "the long poll ended with its client");
        Thread.sleep(500);
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE run_id = ?1 AND lease_token IS NOT NULL",
                UUID.fromString(runId)), "the task is leased to nobody");
        Map<String, Object> task = claimOne(api, handler);
        assertEquals(runId, task.get("runId"));
        assertEquals(1, task.get("attempt"));
    }

    private static boolean aClaimIsWaiting() {
        return Thread.getAllStackTraces().values().stream().map(List::of).anyMatch(frames -> frames.stream()
                .anyMatch(f -> f.getClassName().equals("dev.ductor.worker.ExternalTasks") && f.getMethodName().equals("claimOnce")));
    }

    /**
     * A worker that says it has a free slot ({@code next}) gets its run's next step with the answer to its completion,
     * leased to it (eager dispatch): a chain runs to its end with one claim, each result applied once and recorded. On
     * the plain paths the answer brings none, and the same worker claims each next step from the queue.
     */
    @Test
    void aCompletionAskingForNextGetsTheRunsNextStepLeasedToTheSameWorker() throws Exception {
        Api api = new Api(issuer);
        String handler = "ext:chain-" + UUID.randomUUID();
        String workflow = api.define("{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"" + handler + "\"},"
                + "{\"id\":\"b\",\"type\":\"task\",\"handler\":\"" + handler + "\",\"dependsOn\":[\"a\"]},"
                + "{\"id\":\"c\",\"type\":\"task\",\"handler\":\"" + handler + "\",\"dependsOn\":[\"b\"]}]}");
        String runId = api.start(workflow);
        Map<String, Object> task = claimOne(api, handler);
        for (String node : List.of("b", "c")) {
            JsonPath answer = api.as("worker").body("{\"leaseToken\":\"" + task.get("leaseToken") + "\",\"output\":{\"done\":\""
                            + task.get("node") + "\"},\"next\":{\"handlers\":[\"" + handler + "\"]}}")
                    .post("/api/v1/tasks/{id}/complete", task.get("taskId")).then().statusCode(200).extract().jsonPath();
            assertTrue(answer.getBoolean("recorded"));
            List<Map<String, Object>> next = answer.getList("next");
            if (FastPaths.reportsLeaseNext(config)) {
                assertEquals(1, next.size(), "the run's next step came with the answer: " + answer.prettify());
                task = next.get(0);
            } else {
                assertEquals(List.of(), next, "no task leased with the answer: the next step is queued for a claim");
                task = claimOne(api, handler);
            }
            assertEquals(runId, task.get("runId"));
            assertEquals(node, task.get("node"));
            assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE id = ?1 AND lease_token = CAST(?2 AS uuid)"
                    + " AND lease_owner LIKE '%/w1'", Long.parseLong((String) task.get("taskId")), task.get("leaseToken")),
                    "leased to the worker that asked");
        }
        String last = "{\"leaseToken\":\"" + task.get("leaseToken") + "\",\"output\":{\"done\":\"c\"},\"next\":{\"handlers\":[\""
                + handler + "\"]}}";
        JsonPath end = api.as("worker").body(last).post("/api/v1/tasks/{id}/complete", task.get("taskId"))
                .then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(), end.getList("next"), "nothing follows the last step");
        api.as("worker").body(last).post("/api/v1/tasks/{id}/complete", task.get("taskId")).then().statusCode(200);
        assertEquals("SUCCEEDED", api.awaitStatus(runId, "SUCCEEDED"));
        assertEquals("b", api.run(runId).jsonPath().getString("nodes.c.output.done").replace("c", "b"));
        assertEquals(3, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND kind = 'TASK_RESULT'"
                + " AND consumed_at IS NOT NULL", UUID.fromString(runId)), "each result recorded once, applied");
        Api.problem(api.as("worker").body("{\"leaseToken\":\"" + UUID.randomUUID() + "\",\"next\":{\"handlers\":[\"echo\"]}}")
                .post("/api/v1/tasks/{id}/complete", task.get("taskId")), 400);
    }

    /**
     * Under a backlog, work that has started finishes first: 20 runs of a three-step chain started at once, one worker
     * slot that claims one task and reports with {@code next}. Each run's next step comes with the answer (on the plain
     * paths it is claimed once queued: a started run's step is claimed first), so the runs finish one after the other
     * in the order they started. Claiming alone took the oldest task each time: every first
     * step before any second one, and no run finished before nearly all had begun.
     */
    @Test
    void underABacklogRunsFinishInTheOrderTheyStarted() throws Exception {
        Api api = new Api(issuer);
        String handler = "ext:backlog-" + UUID.randomUUID();
        String workflow = api.define("{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"" + handler + "\"},"
                + "{\"id\":\"b\",\"type\":\"task\",\"handler\":\"" + handler + "\",\"dependsOn\":[\"a\"]},"
                + "{\"id\":\"c\",\"type\":\"task\",\"handler\":\"" + handler + "\",\"dependsOn\":[\"b\"]}]}");
        List<String> started = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            started.add(api.start(workflow));
        }
        List<String> finished = new java.util.ArrayList<>();
        for (int claims = 0; finished.size() < started.size() && claims < 100; claims++) {
            Map<String, Object> task = claimOne(api, handler);
            while (task != null) {
                List<Map<String, Object>> next = api.as("worker").body("{\"leaseToken\":\"" + task.get("leaseToken")
                                + "\",\"output\":{},\"next\":{\"handlers\":[\"" + handler + "\"]}}")
                        .post("/api/v1/tasks/{id}/complete", task.get("taskId")).then().statusCode(200).extract()
                        .jsonPath().getList("next");
                if ("c".equals(task.get("node"))) {
                    finished.add((String) task.get("runId"));
                } else if (!FastPaths.reportsLeaseNext(config)) {
                    // The plain paths bring no next step: once it is queued, the oldest due task is that run's.
                    assertEquals(List.of(), next);
                    String following = "a".equals(task.get("node")) ? "b" : "c";
                    assertEquals("RUNNING", api.awaitNode((String) task.get("runId"), following, "RUNNING"));
                }
                task = next.isEmpty() ? null : next.get(0);
            }
        }
        assertEquals(started, finished, "the runs finished in the order they started");
    }

    @Test
    void anotherTenantsWorkerNeverSeesTheTask() {
        Api owner = new Api(issuer);
        Api stranger = new Api(issuer);
        String handler = "ext:private-" + UUID.randomUUID();
        owner.start(chargeWorkflow(owner, handler, 1));
        List<Object> seen = stranger.as("worker").body("{\"handlers\":[\"" + handler + "\"],\"workerId\":\"x\",\"max\":5}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$");
        assertTrue(seen.isEmpty());
    }

    /** In-process tasks (http, echo...) are the pod's own: a worker token must not read their inputs or forge results. */
    @Test
    void onlyExternalHandlersCanBeClaimed() {
        Api api = new Api(issuer);
        String workflow = api.define(Api.definition(Api.node("wait", "signal", "\"signal\": \"go\""), Api.task("echo", "echo", "wait")));
        String runId = api.start(workflow);
        for (String handlers : List.of("[\"echo\"]", "[\"http\"]", "[\"ext:a\", \"noop\"]", "[\"EXT:a\"]")) {
            JsonPath problem = Api.problem(api.as("worker").body("{\"handlers\":" + handlers + ",\"workerId\":\"w\",\"max\":5}")
                    .post("/api/v1/tasks/claim"), 400);
            assertEquals("handlers", problem.getString("field"), handlers);
            assertTrue(problem.getString("detail").contains("ext:"), problem::prettify);
        }
        api.as("client").body("{\"name\":\"go\",\"idempotencyKey\":\"g\"}").post("/api/v1/runs/{id}/signals", runId)
                .then().statusCode(202);
        assertEquals("SUCCEEDED", api.awaitStatus(runId, "SUCCEEDED"), "the in-process worker still ran the echo task");
    }

    @Test
    void badClaimsAndReportsAre400AndOtherRoles403() {
        Api api = new Api(issuer);
        api.as("worker").body("{\"workerId\":\"w\",\"max\":1}").post("/api/v1/tasks/claim").then().statusCode(400);
        api.as("worker").body("{\"handlers\":[],\"workerId\":\"w\",\"max\":1}").post("/api/v1/tasks/claim").then().statusCode(400);
        api.as("worker").body("{\"handlers\":[\"ext:a\"],\"workerId\":\"w\",\"max\":0}").post("/api/v1/tasks/claim").then().statusCode(400);
        api.as("worker").body("{\"handlers\":[\"ext:a\"],\"workerId\":\"w\",\"max\":1,\"waitSeconds\":3600}").post("/api/v1/tasks/claim").then().statusCode(400);
        api.as("worker").body("{\"leaseToken\":\"not-a-uuid\"}").post("/api/v1/tasks/1/complete").then().statusCode(400);
        api.as("worker").body("{\"leaseToken\":\"" + UUID.randomUUID() + "\"}").post("/api/v1/tasks/abc/complete").then().statusCode(400);
        api.as("worker").body("{\"leaseToken\":\"" + UUID.randomUUID() + "\",\"error\":\"x\",\"retryable\":\"yes\"}")
                .post("/api/v1/tasks/1/fail").then().statusCode(400);
        api.as("client").body("{\"handlers\":[\"ext:a\"],\"workerId\":\"w\",\"max\":1}").post("/api/v1/tasks/claim").then().statusCode(403);
    }
}
