package dev.ductor.sdk.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.sdk.DuctorClient;
import dev.ductor.sdk.Run;
import dev.ductor.sdk.RunIf;
import dev.ductor.sdk.TestServer;
import dev.ductor.sdk.Workflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One SDK worker in this JVM against the real server, whose task lease is {@link TestServer#LEASE} (3 s) and whose
 * reaper looks every second: heartbeats, lease loss, failures and shutdown.
 */
@Tag("it")
class DuctorWorkerIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static TestServer server;
    private static DuctorClient admin;
    private static DuctorClient client;
    private static DuctorClient operator;
    private static DuctorClient workerClient;
    private final List<DuctorWorker> workers = new ArrayList<>();

    public record Order(int order) {
    }

    public record Receipt(int order, int attempt) {
    }

    @BeforeAll
    static void server() {
        server = TestServer.get();
        admin = server.client("admin");
        client = server.client("client");
        operator = server.client("operator");
        workerClient = server.client("worker");
    }

    @AfterEach
    void stopWorkers() {
        workers.forEach(w -> w.shutdown(Duration.ofSeconds(1)));
    }

    private DuctorWorker.Builder worker() {
        return DuctorWorker.builder(workerClient).pollWait(Duration.ofSeconds(2)).backoff(Duration.ofMillis(100), Duration.ofSeconds(2));
    }

    private DuctorWorker started(DuctorWorker.Builder builder) {
        DuctorWorker worker = builder.build().start();
        workers.add(worker);
        return worker;
    }

    /** A workflow of one {@code ext:<handler>} task; a handler name of its own, so no other test's worker takes it. */
    private static String workflow(String handler, int maxAttempts) throws Exception {
        String name = "wf-" + handler;
        admin.putWorkflow(name, JSON.readTree("{\"nodes\": [{\"id\": \"work\", \"type\": \"task\", \"handler\": \"ext:" + handler
                + "\", \"retry\": {\"maxAttempts\": " + maxAttempts + "}}]}"), null);
        return name;
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public record Line(String sku, int n) {
    }

    /**
     * A workflow built with {@link Workflow}: a branch not taken is SKIPPED, a fan-out's items reach a typed handler
     * with their evaluated input, a child run is linked both ways, and the run's output is the workflow's template.
     */
    @Test
    void aWorkflowBuiltInJavaRunsItsBranchesFanOutAndChildAndTheRunShowsThem() throws Exception {
        String handler = unique("pick");
        String shipping = unique("shipping");
        admin.putWorkflow(Workflow.named(shipping).task("pack", "echo", t -> t.input(Map.of("packed", Workflow.expr("input.order")))), null);
        Workflow order = Workflow.named(unique("order"))
                .task("charge", "echo", t -> t.input(Map.of("chargeId", "ch-${{ input.order }}")))
                .task("refund", "noop", t -> t.dependsOn("charge").runIf(RunIf.ANY_FAILED))
                .workflow("ship", shipping, w -> w.dependsOn("charge").when("nodes.charge.state == 'SUCCEEDED'")
                        .input(Map.of("order", Workflow.expr("input.order"))))
                .task("lines", "ext:" + handler, t -> t.dependsOn("ship").forEach("input.lines").maxConcurrency(2)
                        .input(Map.of("sku", Workflow.expr("item"), "n", Workflow.expr("index"))))
                .output(Map.of("charge", Workflow.expr("nodes.charge.output.chargeId"), "picked", Workflow.expr("nodes.lines.output")));
        admin.putWorkflow(order, null);
        List<Line> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        started(worker().handler(handler, Line.class, (line, ctx) -> {
            seen.add(line);
            return line.sku().toUpperCase();
        }));
        Run run = client.awaitRun(client.startRun(order.name(), Map.of("order", 7, "lines", List.of("a", "b", "c")), null).runId(),
                Duration.ofSeconds(60));
        assertEquals("SUCCEEDED", run.status(), run.toString());
        assertEquals("ch-7", run.output().path("charge").asText());
        assertEquals(List.of("A", "B", "C"), JSON.convertValue(run.output().path("picked"), List.class));
        assertEquals(Set.of(new Line("a", 0), new Line("b", 1), new Line("c", 2)), Set.copyOf(seen), "the typed, evaluated input");
        assertTrue(run.nodeView("refund").isSkipped(), "its trigger could not hold");
        assertEquals("3/3", run.nodeView("lines").progress());
        assertEquals(7, run.nodeView("ship").input().path("order").asInt());
        assertNull(run.parentRunId());
        Run.Child child = run.child("ship").orElseThrow();
        assertEquals(shipping, child.workflow());
        assertEquals(run.runId(), client.getRun(child.runId()).parentRunId());
    }

    @Test
    void typedInputAndOutputGoThroughJacksonAndTheMdcNamesTheAttempt() throws Exception {
        String handler = unique("typed");
        String workflow = workflow(handler, 1);
        Map<String, String> mdc = new ConcurrentHashMap<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        started(worker().meterRegistry(registry).handler(handler, Order.class, (Order order, TaskContext ctx) -> {
            mdc.putAll(MDC.getCopyOfContextMap());
            return new Receipt(order.order() * 2, ctx.attempt());
        }));
        Run run = client.startRun(workflow, Map.of("order", 21), null);
        Run done = client.awaitRun(run.runId(), Duration.ofSeconds(30));
        assertEquals("SUCCEEDED", done.status());
        assertEquals(42, done.node("work").path("output").path("order").asInt());
        assertEquals(run.runId(), mdc.get("ductor.runId"));
        assertEquals("work", mdc.get("ductor.node"));
        assertEquals("1", mdc.get("ductor.attempt"));
        // The slot is free when the handler returns and the report's answer comes after the server applied it: the
        // completion is counted a moment after the run is seen done.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (registry.find("ductor.worker.completions").tag("handler", "ext:" + handler).counter() == null
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(1.0, registry.get("ductor.worker.completions").tag("handler", "ext:" + handler).counter().count());
        assertEquals(1, registry.get("ductor.worker.handler.duration").tag("outcome", "success").timer().count());
    }

    @Test
    void aNonRetryableExceptionFailsTheNodeAndAnyOtherLetsItRetry() throws Exception {
        String handler = unique("failing");
        String workflow = workflow(handler, 3);
        started(worker().handler(handler, JsonNode.class, (JsonNode input, TaskContext ctx) -> {
            if (input.path("declined").asBoolean()) {
                throw new NonRetryableException("card declined");
            }
            if (ctx.attempt() == 1) {
                throw new IllegalStateException("gateway timed out");
            }
            return Map.of("attempt", ctx.attempt());
        }));
        Run declined = client.awaitRun(client.startRun(workflow, Map.of("declined", true), null).runId(), Duration.ofSeconds(30));
        assertEquals("FAILED", declined.status());
        assertEquals(1, declined.node("work").path("attempts").asInt());
        assertTrue(declined.node("work").path("error").asText().contains("card declined"), declined.toString());

        Run retried = client.awaitRun(client.startRun(workflow, Map.of("declined", false), null).runId(), Duration.ofSeconds(30));
        assertEquals("SUCCEEDED", retried.status());
        assertEquals(2, retried.node("work").path("attempts").asInt());
    }

    @Test
    void aTaskRunningThreeLeasesLongSucceedsOnItsFirstAttemptThroughHeartbeats() throws Exception {
        String handler = unique("long");
        String workflow = workflow(handler, 3);
        long runFor = TestServer.LEASE.toMillis() * 3 + 500;
        DuctorWorker worker = started(worker().handler(handler, JsonNode.class, (JsonNode input, TaskContext ctx) -> {
            Thread.sleep(runFor);
            return Map.of("slept", runFor, "cancelled", ctx.isCancelled());
        }));
        Run done = client.awaitRun(client.startRun(workflow, Map.of(), null).runId(), Duration.ofSeconds(60));
        assertEquals("SUCCEEDED", done.status(), done.toString());
        assertEquals(1, done.node("work").path("attempts").asInt(), "the lease was extended, never reaped");
        assertFalse(done.node("work").path("output").path("cancelled").asBoolean());
        assertEquals(0, worker.stats().leaseLost());
    }

    @Test
    void anOperatorsRetryRevokesTheLeaseCancelsTheHandlerAndItsResultIsNotSent() throws Exception {
        String handler = unique("revoked");
        String workflow = workflow(handler, 3);
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch listenerCalled = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean sawCancelled = new AtomicBoolean();
        DuctorWorker worker = started(worker().handler(handler, JsonNode.class, (JsonNode input, TaskContext ctx) -> {
            if (ctx.attempt() == 1) {
                ctx.onCancel(listenerCalled::countDown);
                firstStarted.countDown();
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
                sawCancelled.set(ctx.isCancelled());
                return Map.of("from", "attempt 1, superseded"); // must never reach the run
            }
            return Map.of("from", "attempt " + ctx.attempt());
        }));
        Run run = client.startRun(workflow, Map.of(), null);
        assertTrue(firstStarted.await(30, TimeUnit.SECONDS));
        Run seen = client.getRun(run.runId());
        operator.retryNode(run.runId(), "work", seen.version());

        assertTrue(listenerCalled.await(15, TimeUnit.SECONDS), "the next heartbeat (409) cancels the context");
        Run done = client.awaitRun(run.runId(), Duration.ofSeconds(30));
        assertEquals("SUCCEEDED", done.status());
        assertEquals(2, done.node("work").path("attempts").asInt());
        assertEquals("attempt 2", done.node("work").path("output").path("from").asText());
        assertTrue(interrupted.get(), "the handler thread was interrupted");
        assertTrue(sawCancelled.get());
        WorkerStats stats = worker.stats();
        assertEquals(1, stats.leaseLost());
        assertEquals(1, stats.completed(), "only attempt 2 was reported");
        assertEquals(2, stats.claimed());
    }

    @Test
    void aShutdownDrainsInFlightTasksWithoutSpendingAnAttempt() throws Exception {
        String handler = unique("drain");
        String workflow = workflow(handler, 1);
        CountDownLatch started = new CountDownLatch(3);
        AtomicInteger sawShutdown = new AtomicInteger();
        DuctorWorker worker = started(worker().concurrency(4).handler(handler, JsonNode.class, (JsonNode input, TaskContext ctx) -> {
            started.countDown();
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TestServer.LEASE.toMillis() + 1500);
            while (System.nanoTime() < until) {
                Thread.sleep(50);
            }
            if (ctx.isShuttingDown()) {
                sawShutdown.incrementAndGet();
            }
            return Map.of("done", true);
        }));
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            runs.add(client.startRun(workflow, Map.of("i", i), null).runId());
        }
        assertTrue(started.await(30, TimeUnit.SECONDS));
        long before = System.nanoTime();
        assertTrue(worker.shutdown(Duration.ofSeconds(20)), "everything in flight finished within the grace");
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - before) < 15);
        assertEquals(3, sawShutdown.get(), "the handlers were told");
        for (String runId : runs) {
            Run done = client.awaitRun(runId, Duration.ofSeconds(30));
            assertEquals("SUCCEEDED", done.status());
            assertEquals(1, done.node("work").path("attempts").asInt(), "the drained task spent no second attempt");
        }
        assertEquals(3, worker.stats().completed());
        assertEquals(0, worker.stats().abandoned());
    }

    @Test
    void whatOutlastsTheGraceIsNotReportedAndIsHandedBackToAnotherWorkerOnTheSameAttempt() throws Exception {
        String handler = unique("handback");
        String workflow = workflow(handler, 1);
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean cancelled = new AtomicBoolean();
        DuctorWorker stubborn = started(worker().handler(handler, JsonNode.class, (JsonNode input, TaskContext ctx) -> {
            started.countDown();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < until && !ctx.isCancelled()) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    // keeps going until it sees the cancellation
                }
            }
            cancelled.set(ctx.isCancelled());
            return Map.of("from", "the stubborn worker");
        }));
        Run run = client.startRun(workflow, Map.of(), null);
        assertTrue(started.await(30, TimeUnit.SECONDS));
        assertFalse(stubborn.shutdown(Duration.ofMillis(500)), "a task was left");
        assertFalse(stubborn.isReady(), "a stopped worker is not ready");
        assertEquals(1, stubborn.stats().abandoned());
        assertEquals(0, stubborn.stats().completed());
        Thread.sleep(300);
        assertTrue(cancelled.get());
        assertEquals("RUNNING", client.getRun(run.runId()).status());

        long handedOver = System.nanoTime();
        started(worker().handler(handler, JsonNode.class, (JsonNode input, TaskContext ctx) -> Map.of("from", "attempt " + ctx.attempt())));
        Run done = client.awaitRun(run.runId(), Duration.ofSeconds(30));
        assertEquals("SUCCEEDED", done.status(), "a node of maxAttempts 1: the hand-back spent no attempt");
        assertEquals("attempt 1", done.node("work").path("output").path("from").asText());
        assertEquals(1, done.node("work").path("attempts").asInt());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - handedOver) < TestServer.LEASE.toMillis(),
                "taken over at once, not after the lease ran out");
    }

    @Test
    void startChecksTheServerAndFailsAtOnceWhenItDoesNotAnswer() {
        DuctorClient nowhere = DuctorClient.builder().baseUri("http://127.0.0.1:1").token("x").build();
        DuctorWorker worker = DuctorWorker.builder(nowhere).backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
                .handler("nothing", JsonNode.class, (JsonNode input, TaskContext ctx) -> null).build();
        long before = System.nanoTime();
        WorkerStartException refused = assertThrows(WorkerStartException.class, worker::start);
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before) < 5000, "at once");
        assertTrue(refused.getMessage().contains("no answer from the Ductor server at http://127.0.0.1:1"), refused.getMessage());
        assertFalse(worker.isReady());
        assertEquals(0, worker.stats().claimed());
        assertTrue(worker.shutdown(Duration.ofSeconds(1)));
    }

    @Test
    void startChecksTheTokenAndFailsAtOnceWhenTheServerRefusesIt() {
        DuctorClient forged = DuctorClient.builder().baseUri(server.baseUri()).token("not.a.jwt").build();
        DuctorWorker worker = DuctorWorker.builder(forged)
                .handler("nothing", JsonNode.class, (JsonNode input, TaskContext ctx) -> null).build();
        WorkerStartException refused = assertThrows(WorkerStartException.class, worker::start);
        assertEquals(401, refused.status());
        assertTrue(refused.getMessage().contains("refused the worker's token"), refused.getMessage());

        DuctorWorker asClient = DuctorWorker.builder(client)
                .handler("nothing", JsonNode.class, (JsonNode input, TaskContext ctx) -> null).build();
        WorkerStartException wrongRole = assertThrows(WorkerStartException.class, asClient::start);
        assertEquals(403, wrongRole.status());
        assertTrue(wrongRole.getMessage().contains("lacks the worker role"), wrongRole.getMessage());
        asClient.shutdown(Duration.ofSeconds(1));
        worker.shutdown(Duration.ofSeconds(1));
    }

    @Test
    void aStartedWorkerIsReady() {
        DuctorWorker worker = started(worker().handler(unique("ready"), JsonNode.class, (JsonNode input, TaskContext ctx) -> null));
        assertTrue(worker.isReady(), "ready once start() returned: its first claim was answered");
        assertTrue(worker.shutdown(Duration.ofSeconds(5)));
        assertFalse(worker.isReady());
    }
}
