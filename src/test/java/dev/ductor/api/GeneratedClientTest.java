package dev.ductor.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import dev.ductor.generated.ApiClient;
import dev.ductor.generated.ApiException;
import dev.ductor.generated.api.RunsApi;
import dev.ductor.generated.api.WorkflowsApi;
import dev.ductor.generated.model.RunView;
import dev.ductor.generated.model.SignalBody;
import dev.ductor.generated.model.SignalReceipt;
import dev.ductor.generated.model.StartBody;
import dev.ductor.generated.model.StoredWorkflow;
import dev.ductor.generated.model.TransitionView;
import dev.ductor.generated.model.WorkflowDefinition;
import dev.ductor.generated.model.WorkflowNode;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A user's generated client works: the Java client that openapi-generator makes from {@code docs/openapi.json} (the
 * build's generate-test-sources, see the pom) defines a workflow, starts a run, signals it and reads its history against
 * the real server. Its JSON mapper refuses unknown fields, so every field the server writes must be in the document.
 */
@QuarkusTest
@Tag("api")
class GeneratedClientTest {

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    @TestHTTPResource("/")
    URL server;

    private final String tenant = "generated-" + UUID.randomUUID().toString().substring(0, 8);

    private ApiClient as(String role) {
        String token = issuer.mint(role, tenant);
        ApiClient client = new ApiClient();
        client.updateBaseUri(server.toString().replaceAll("/$", ""));
        client.setObjectMapper(ApiClient.createDefaultObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true));
        client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + token));
        return client;
    }

    @Test
    void aGeneratedClientDefinesStartsSignalsAndReadsTheHistory() throws Exception {
        String name = fixtures.uniqueName("generated");
        WorkflowDefinition definition = new WorkflowDefinition().nodes(List.of(
                new WorkflowNode().id("paid").type(WorkflowNode.TypeEnum.SIGNAL).signal("paid").timeout("PT1H"),
                new WorkflowNode().id("receipt").type(WorkflowNode.TypeEnum.TASK).handler("echo")
                        .dependsOn(List.of("paid")).input(Map.of("order", "${{ input.orderId }}"))));
        StoredWorkflow stored = new WorkflowsApi(as("admin")).putWorkflow(name, definition, null);
        assertEquals(1, stored.getRevision());
        assertEquals(List.of("paid"), stored.getNodes().get(1).getDependsOn());

        RunsApi runs = new RunsApi(as("client"));
        RunView started = new WorkflowsApi(as("client")).startRun(name,
                new StartBody().input(Map.of("orderId", "A-1001")).idempotencyKey("order-A-1001"));
        assertEquals("RUNNING", started.getStatus());
        assertEquals(null, started.getParentRunId());
        awaitNode(runs, started.getRunId().toString(), "paid", "WAITING");

        SignalReceipt receipt = runs.signalRun(started.getRunId().toString(),
                new SignalBody().name("paid").payload(Map.of("amount", 42.5)).idempotencyKey("paid-A-1001"));
        assertEquals(SignalReceipt.DeliveredEnum.ACCEPTED, receipt.getDelivered());

        RunView done = awaitNode(runs, started.getRunId().toString(), "receipt", "SUCCEEDED");
        assertEquals(Map.of("order", "A-1001"), done.getNodes().get("receipt").getOutput());
        List<TransitionView> history = runs.getRunHistory(started.getRunId().toString(), null, null);
        assertTrue(history.stream().anyMatch(t -> "paid".equals(t.getNode()) && "SUCCEEDED".equals(t.getTo())), history.toString());
        for (int i = 1; i < history.size(); i++) {
            assertTrue(history.get(i - 1).getSeq() < history.get(i).getSeq(), "history in seq order: " + history);
        }
    }

    @Test
    void anErrorReachesTheGeneratedClientAsItsStatusAndProblem() {
        ApiException missing = assertThrows(ApiException.class,
                () -> new WorkflowsApi(as("client")).startRun("no-such-workflow", new StartBody()));
        assertEquals(404, missing.getCode());
        assertTrue(missing.getResponseBody().contains("\"status\":404"), missing.getResponseBody());
    }

    private static RunView awaitNode(RunsApi runs, String runId, String node, String state) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        RunView run = runs.getRun(runId);
        while (!state.equals(run.getNodes().get(node).getState())) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("node " + node + " never reached " + state + ": " + run);
            }
            Thread.sleep(100);
            run = runs.getRun(runId);
        }
        return run;
    }
}
