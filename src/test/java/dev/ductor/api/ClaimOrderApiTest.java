package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Under a backlog a started run's next step is claimed before the first steps of runs started after it, so runs
 * finish in about the order they started (issue 30): the claim takes the oldest due task, and a task due now is
 * queued as due since its run started.
 */
@QuarkusTest
@Tag("api")
class ClaimOrderApiTest {

    @Inject
    DevTokenIssuer issuer;

    @Test
    void aStartedRunsNextStepIsClaimedBeforeTheFirstStepsOfLaterRuns() throws Exception {
        Api api = new Api(issuer);
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String first = "ext:first-" + suffix;
        String second = "ext:second-" + suffix;
        String workflow = api.define("{\"nodes\":[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"" + first + "\"},"
                + "{\"id\":\"b\",\"type\":\"task\",\"handler\":\"" + second + "\",\"dependsOn\":[\"a\"]}]}");
        String oldest = api.start(workflow);
        List<String> later = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Thread.sleep(20); // each later run starts in a later millisecond than the oldest
            later.add(api.start(workflow));
        }

        Map<String, Object> a = claim(api, List.of(first)).get(0);
        assertEquals(oldest, a.get("runId"), "the oldest due first step is claimed first");
        // Completed without asking for the next step: it is queued for any worker, not leased with the answer.
        api.as("worker").body("{\"leaseToken\":\"" + a.get("leaseToken") + "\",\"output\":{}}")
                .post("/api/v1/tasks/{id}/complete", a.get("taskId")).then().statusCode(200);
        awaitNode(api, oldest, "b", "RUNNING");

        List<Map<String, Object>> claimed = claim(api, List.of(first, second));
        Map<String, Object> next = claimed.get(0);
        assertEquals(oldest, next.get("runId"), "the oldest run's second step goes before the later runs' first: " + claimed);
        assertEquals("b", next.get("node"));

        List<Map<String, Object>> rest = new ArrayList<>();
        for (int i = 0; i < later.size(); i++) {
            rest.addAll(claim(api, List.of(first, second)));
        }
        assertEquals(later, rest.stream().map(t -> t.get("runId")).toList(), "then the later runs in the order they started");
    }

    private static List<Map<String, Object>> claim(Api api, List<String> handlers) {
        String names = String.join("\",\"", handlers);
        List<Map<String, Object>> tasks = api.as("worker")
                .body("{\"handlers\":[\"" + names + "\"],\"workerId\":\"order\",\"max\":1,\"waitSeconds\":10}")
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getList("$");
        assertEquals(1, tasks.size(), "one task claimed: " + tasks);
        return tasks;
    }

    private static void awaitNode(Api api, String runId, String node, String state) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!state.equals(api.run(runId).path("nodes." + node + ".state")) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(state, api.run(runId).path("nodes." + node + ".state"), "node " + node + " of run " + runId);
    }
}
