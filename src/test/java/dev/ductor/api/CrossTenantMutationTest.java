package dev.ductor.api;

import dev.ductor.support.Api;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Another tenant's run or task is not there, for commands as for reads: every mutating route answers exactly 404
 * (never 403, 409 or 428, which would tell the caller the id exists), even with the run's real version and the
 * task's real lease token, and changes nothing.
 */
@QuarkusTest
@Tag("api")
class CrossTenantMutationTest {

    @Inject
    DevTokenIssuer issuer;

    @Test
    void anotherTenantsRunAndTaskAre404OnEveryMutatingRoute() {
        Api owner = new Api(issuer);
        Api stranger = new Api(issuer);
        String handler = "ext:cross-" + UUID.randomUUID();
        String workflow = Api.unique("cross");
        owner.createWorkflow(workflow, Api.definition(Api.task("work", handler),
                Api.node("paid", "signal", "\"signal\": \"paid\"")));
        String runId = owner.start(workflow);
        Map<String, Object> task = owner.as("worker")
                .body("{\"handlers\":[\"" + handler + "\"],\"workerId\":\"w1\",\"max\":1,\"waitSeconds\":10}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$", Map.class).get(0);
        String taskId = String.valueOf(task.get("taskId"));
        String lease = (String) task.get("leaseToken");
        Response before = owner.run(runId);
        String etag = before.header("ETag");

        Map<String, Response> answers = new java.util.LinkedHashMap<>();
        answers.put("signal", stranger.as("client").body("{\"name\": \"paid\", \"idempotencyKey\": \"k-1\"}")
                .post("/api/v1/runs/{id}/signals", runId));
        answers.put("cancel", stranger.as("operator").post("/api/v1/runs/{id}/cancel", runId));
        answers.put("dead-letter retry", stranger.as("operator").post("/api/v1/runs/{id}/dead-letters/retry", runId));
        answers.put("PATCH with the run's real If-Match", stranger.as("operator").header("If-Match", etag)
                .body("{\"tier\": \"bulk\"}").patch("/api/v1/runs/{id}", runId));
        answers.put("PATCH without If-Match", stranger.as("operator").body("{\"tier\": \"bulk\"}").patch("/api/v1/runs/{id}", runId));
        answers.put("PATCH with a stale If-Match", stranger.as("operator").header("If-Match", "\"999\"")
                .body("{\"tier\": \"bulk\"}").patch("/api/v1/runs/{id}", runId));
        answers.put("heartbeat with the real lease token", stranger.as("worker").body("{\"leaseToken\": \"" + lease + "\"}")
                .post("/api/v1/tasks/{id}/heartbeat", taskId));
        answers.put("complete with the real lease token", stranger.as("worker")
                .body("{\"leaseToken\": \"" + lease + "\", \"output\": {\"stolen\": true}}").post("/api/v1/tasks/{id}/complete", taskId));
        answers.put("fail with the real lease token", stranger.as("worker")
                .body("{\"leaseToken\": \"" + lease + "\", \"error\": \"no\", \"retryable\": false}")
                .post("/api/v1/tasks/{id}/fail", taskId));
        for (Map.Entry<String, Response> answer : answers.entrySet()) {
            Api.problem(answer.getValue(), 404);
        }

        // Nothing changed: the run is where it was, and its worker still holds the lease and finishes the task.
        Response after = owner.run(runId);
        assertEquals(etag, after.header("ETag"));
        JsonPath run = after.jsonPath();
        assertEquals("RUNNING", run.getString("status"));
        assertEquals("standard", run.getString("tier"));
        assertEquals("RUNNING", run.getString("nodes.work.state"));
        owner.as("worker").body("{\"leaseToken\": \"" + lease + "\"}").post("/api/v1/tasks/{id}/heartbeat", taskId)
                .then().statusCode(200);
        owner.as("worker").body("{\"leaseToken\": \"" + lease + "\", \"output\": {\"mine\": true}}")
                .post("/api/v1/tasks/{id}/complete", taskId).then().statusCode(200);
        // and once the owner finished it, the stranger's repeat of that very completion is still a 404
        Api.problem(stranger.as("worker").body("{\"leaseToken\": \"" + lease + "\", \"output\": {\"mine\": true}}")
                .post("/api/v1/tasks/{id}/complete", taskId), 404);
        assertEquals(List.of(), stranger.as("client").get("/api/v1/runs").then().statusCode(200).extract().jsonPath()
                .getList("items"));
    }
}
