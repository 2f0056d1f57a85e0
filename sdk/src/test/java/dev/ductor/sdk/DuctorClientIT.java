package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client against the real server on its embedded PostgreSQL: every call, and every error typed. */
@Tag("it")
class DuctorClientIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static TestServer server;
    private static DuctorClient admin;
    private static DuctorClient operator;
    private static DuctorClient client;

    @BeforeAll
    static void server() {
        server = TestServer.get();
        admin = server.client("admin");
        operator = server.client("operator");
        client = server.client("client");
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void workflowEditsNameTheVersionTheyWereBasedOn() {
        String name = unique("wf");
        JsonNode one = json("{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]}");
        Versioned created = admin.putWorkflow(name, one, null);
        assertTrue(created.created());
        assertEquals(0, created.version());
        assertEquals(0, admin.getWorkflow(name).version());
        assertTrue(admin.listWorkflows().stream().anyMatch(w -> w.path("name").asText().equals(name)));

        JsonNode two = json("{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"echo\"}]}");
        PreconditionRequiredException missing = assertThrows(PreconditionRequiredException.class, () -> admin.putWorkflow(name, two, null));
        assertEquals(428, missing.status());
        Versioned updated = admin.putWorkflow(name, two, 0L);
        assertFalse(updated.created());
        assertEquals(1, updated.version());

        ConflictException stale = assertThrows(ConflictException.class, () -> admin.putWorkflow(name, one, 0L));
        assertEquals("version-conflict", stale.problemType());
        assertEquals(1L, stale.currentVersion());
        assertEquals("echo", stale.current().path("nodes").get(0).path("handler").asText());
        assertEquals("noop", stale.rejected().path("nodes").get(0).path("handler").asText());
        assertEquals("echo", admin.getWorkflow(name).body().path("nodes").get(0).path("handler").asText(), "nothing overwritten");
    }

    @Test
    void aRunStartedTwiceWithOneKeyIsOneRunAndItsWaitEndsWhenItFinishes() {
        String name = unique("chain");
        admin.putWorkflow(name, json("{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"},"
                + "{\"id\": \"b\", \"type\": \"task\", \"handler\": \"echo\", \"dependsOn\": [\"a\"]}]}"), null);
        Run first = client.startRun(name, Map.of("order", 42), StartOptions.key("order-42").tier("interactive"));
        Run again = client.startRun(name, Map.of("order", 42), StartOptions.key("order-42").tier("interactive"));
        assertEquals(first.runId(), again.runId());
        assertThrows(InvalidRequestException.class, () -> client.startRun(name, Map.of("order", 43), StartOptions.key("order-42")));

        // The server has no run event stream yet: the wait polls.
        Run done = client.awaitRun(first.runId(), Duration.ofSeconds(60));
        assertEquals("SUCCEEDED", done.status());
        assertTrue(done.isTerminal());
        assertEquals(1, done.node("b").path("attempts").asInt());
        assertEquals(done.version(), client.getRun(first.runId()).version());

        List<Transition> history = client.history(first.runId());
        assertFalse(history.isEmpty());
        for (int i = 0; i < history.size(); i++) {
            assertEquals(i + 1, history.get(i).seq(), "history in seq order without gaps");
        }
        assertTrue(history.stream().anyMatch(t -> "b".equals(t.node()) && "SUCCEEDED".equals(t.to())));

        // Paged: pages of 3 follow the server's Link rel="next" to the same transitions, none twice, none left out.
        List<Transition> paged = new java.util.ArrayList<>();
        HistoryPage page = client.historyPage(first.runId(), 0, 3);
        paged.addAll(page.items());
        while (page.hasMore()) {
            assertEquals(paged.get(paged.size() - 1).seq(), page.nextAfter().longValue(), "the next page starts after the last seq");
            page = client.historyPage(first.runId(), page.nextAfter(), 3);
            paged.addAll(page.items());
        }
        assertEquals(history, paged);
        assertEquals(history.subList(2, history.size()), client.history(first.runId(), 2));
    }

    @Test
    void runListsPageWithACursor() {
        String name = unique("paged");
        admin.putWorkflow(name, json("{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]}"), null);
        Set<String> started = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            started.add(client.startRun(name, Map.of("i", i), null).runId());
        }
        Set<String> listed = new HashSet<>();
        int pages = 0;
        RunQuery query = RunQuery.all().workflow(name).limit(2);
        Page<RunSummary> page;
        do {
            page = client.listRuns(query);
            pages++;
            for (RunSummary run : page.items()) {
                assertTrue(listed.add(run.runId()), "no run twice across pages");
                assertFalse(run.json().has("input"), "a summary has no input: " + run);
                assertTrue(run.nodes().has("a"), run.toString());
            }
            query = query.cursor(page.nextCursor());
        } while (page.hasMore());
        assertEquals(started, listed);
        assertEquals(3, pages);
    }

    @Test
    void runsStartedWithTagsAreFoundByThem() {
        String name = unique("tagged");
        admin.putWorkflow(name, json("{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]}"), null);
        String customer = unique("c");
        Run web = client.startRun(name, Map.of(), StartOptions.none().tag("customer", customer).tag("channel", "web"));
        assertEquals(Map.of("customer", customer, "channel", "web"), web.tags());
        client.startRun(name, Map.of(), StartOptions.none().tags(Map.of("customer", customer, "channel", "phone")));
        Run untagged = client.startRun(name, Map.of(), null);
        assertTrue(untagged.tags().isEmpty(), untagged.toString());

        Page<RunSummary> byCustomer = client.listRuns(RunQuery.all().tag("customer", customer));
        assertEquals(2, byCustomer.items().size(), byCustomer.items().toString());
        Page<RunSummary> both = client.listRuns(RunQuery.all().workflow(name).tag("customer", customer).tag("channel", "web"));
        assertEquals(1, both.items().size());
        assertEquals(web.runId(), both.items().get(0).runId());
        assertEquals("web", both.items().get(0).tags().get("channel"));
        assertEquals(Map.of("customer", customer, "channel", "web"), client.getRun(web.runId()).tags());
        assertThrows(InvalidRequestException.class, () -> client.startRun(name, Map.of(), StartOptions.none().tag("bad key", "x")));
    }

    @Test
    void signalsAreDeliveredOnceAndAFinishedRunRefusesThemAndCancellation() {
        String name = unique("signal");
        admin.putWorkflow(name, json("{\"nodes\": [{\"id\": \"paid\", \"type\": \"signal\", \"signal\": \"paid\"}]}"), null);
        Run run = client.startRun(name, Map.of(), null);
        assertEquals("accepted", client.signal(run.runId(), "paid", Map.of("amount", 42), "pay-1").path("delivered").asText());
        assertEquals("duplicate", client.signal(run.runId(), "paid", Map.of("amount", 42), "pay-1").path("delivered").asText());
        assertEquals("SUCCEEDED", client.awaitRun(run.runId(), Duration.ofSeconds(60)).status());
        assertThrows(ConflictException.class, () -> client.signal(run.runId(), "paid", null, "pay-2"));

        Run other = client.startRun(name, Map.of(), null);
        operator.cancel(other.runId());
        assertEquals("CANCELLED", client.awaitRun(other.runId(), Duration.ofSeconds(60)).status());
        assertEquals(409, assertThrows(ConflictException.class, () -> operator.cancel(other.runId())).status());
    }

    @Test
    void nodesAreRetriedAndSkippedOnlyFromTheVersionSeen() {
        String name = unique("ops");
        admin.putWorkflow(name, json("{\"nodes\": [{\"id\": \"stuck\", \"type\": \"task\", \"handler\": \"ext:nobody-serves-this\","
                + " \"retry\": {\"maxAttempts\": 3}}, {\"id\": \"after\", \"type\": \"task\", \"handler\": \"noop\", \"dependsOn\": [\"stuck\"]}]}"), null);
        Run run = client.startRun(name, Map.of(), null);
        Run seen = client.getRun(run.runId());
        assertThrows(InvalidRequestException.class, () -> operator.patchRun(run.runId(), json("{\"tier\": \"batch\"}"), -1L),
                "an If-Match that is no version is refused");
        Run retried = operator.retryNode(run.runId(), "stuck", seen.version());
        assertEquals(2, retried.node("stuck").path("attempts").asInt());
        ConflictException stale = assertThrows(ConflictException.class, () -> operator.skipNode(run.runId(), "stuck", seen.version()));
        assertEquals(retried.version(), stale.currentVersion());
        assertNotNull(stale.rejected());
        operator.skipNode(run.runId(), "stuck", retried.version());
        Run done = client.awaitRun(run.runId(), Duration.ofSeconds(60));
        assertEquals("SUCCEEDED", done.status());
        assertEquals("SKIPPED", done.node("stuck").path("state").asText());
    }

    @Test
    void aFailedRunIsResetOntoTheFixedRevisionFromTheVersionSeen() {
        String name = unique("reset");
        String broken = "{\"nodes\": [{\"id\": \"load\", \"type\": \"task\", \"handler\": \"echo\"},"
                + " {\"id\": \"charge\", \"type\": \"task\", \"handler\": \"fail\", \"dependsOn\": [\"load\"],"
                + " \"input\": {\"message\": \"bug\", \"retryable\": false}}]}";
        Versioned v1 = admin.putWorkflow(name, json(broken), null);
        Run run = client.startRun(name, Map.of(), null);
        Run failed = client.awaitRun(run.runId(), Duration.ofSeconds(60));
        assertEquals("FAILED", failed.status());
        admin.putWorkflow(name, json(broken.replace("\"fail\"", "\"echo\"")), v1.version());

        ConflictException stale = assertThrows(ConflictException.class,
                () -> operator.resetRun(run.runId(), ResetOptions.failedOnly().toCurrentRevision(), failed.version() - 1));
        assertEquals(failed.version(), stale.currentVersion());
        assertEquals("FAILED", stale.current().path("status").asText());
        assertEquals("current", stale.rejected().path("toRevision").asText());
        ConflictException unknown = assertThrows(ConflictException.class,
                () -> operator.resetRun(run.runId(), ResetOptions.fromNodes("nope"), failed.version()));
        assertNotNull(unknown.rejected());

        Run reset = operator.resetRun(run.runId(), ResetOptions.failedOnly().toCurrentRevision(), failed.version());
        assertTrue(reset.version() > failed.version());
        Run done = client.awaitRun(run.runId(), Duration.ofSeconds(60));
        assertEquals("SUCCEEDED", done.status());
        assertEquals(2, done.json().path("revision").asInt());
        assertEquals(2, done.node("charge").path("attempts").asInt());
        assertEquals(1, done.node("load").path("attempts").asInt(), "upstream of the failure is not run again");

        assertThrows(ConflictException.class, () -> operator.resetRun(run.runId(), ResetOptions.fromNodes("load"), done.version()),
                "a SUCCEEDED run only when asked");
        Run again = operator.resetRun(run.runId(), ResetOptions.fromNodes("load").reopenSucceeded(), done.version());
        assertEquals("RUNNING", again.status());
        assertEquals("SUCCEEDED", client.awaitRun(run.runId(), Duration.ofSeconds(60)).status());
    }

    @Test
    void errorsAreTypedByStatus() {
        DuctorClient nobody = DuctorClient.builder().baseUri(server.baseUri()).token("not-a-jwt").build();
        assertEquals(401, assertThrows(UnauthorizedException.class, nobody::listWorkflows).status());
        assertThrows(ForbiddenException.class, () -> client.putWorkflow(unique("x"), json("{\"nodes\": []}"), null));
        NotFoundException missing = assertThrows(NotFoundException.class, () -> client.getRun(UUID.randomUUID().toString()));
        assertEquals("not-found", missing.problemType());
        assertThrows(InvalidRequestException.class, () -> client.listRuns(RunQuery.all().status("NO-SUCH-STATUS")));
        DuctorClient down = DuctorClient.builder().baseUri("http://127.0.0.1:1").token("x").build();
        DuctorException unreachable = assertThrows(DuctorException.class, down::listWorkflows);
        assertEquals(0, unreachable.status());
        assertTrue(unreachable.isTransient());
    }

    @Test
    void theTokenSupplierIsAskedOnEveryRequest() {
        AtomicInteger asked = new AtomicInteger();
        String[] tokens = {readToken("client"), readToken("admin")};
        DuctorClient rotating = DuctorClient.builder().baseUri(server.baseUri())
                .tokenSupplier(() -> tokens[asked.getAndIncrement() % 2]).build();
        rotating.listWorkflows();
        rotating.listWorkflows();
        rotating.listPools();
        assertEquals(3, asked.get());
    }

    @Test
    void poolsRulesAndEvents() {
        String pool = unique("pool");
        Versioned created = admin.putPool(pool, 3, null, null);
        assertTrue(created.created());
        assertThrows(PreconditionRequiredException.class, () -> admin.putPool(pool, 4, null, null));
        Versioned changed = admin.putPool(pool, 4, true, created.version());
        assertEquals(4, admin.getPool(pool).body().path("capacity").asInt());
        assertTrue(admin.getPool(pool).body().path("paused").asBoolean());
        assertThrows(ConflictException.class, () -> admin.putPool(pool, 5, null, created.version()));
        assertEquals(changed.version(), admin.getPool(pool).version());
        assertTrue(client.listPools().stream().anyMatch(p -> p.path("name").asText().equals(pool)));

        String workflow = unique("on-event");
        admin.putWorkflow(workflow, json("{\"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"echo\"}]}"), null);
        String rule = unique("rule");
        String type = unique("order.placed");
        Versioned ruleCreated = admin.putRule(rule, json("{\"on\": \"" + type + "\", \"start\": {\"workflow\": \"" + workflow
                + "\", \"input\": \"$\"}}"), null);
        assertEquals(ruleCreated.version(), admin.getRule(rule).version());
        assertTrue(client.listRules().stream().anyMatch(r -> r.path("name").asText().equals(rule)));

        JsonNode receipt = client.sendEvent(type, "o-9", Map.of("id", 9), "evt-" + rule);
        assertFalse(receipt.path("duplicate").asBoolean());
        assertEquals(1, receipt.path("started").size());
        String runId = receipt.path("started").get(0).path("runId").asText();
        JsonNode again = client.sendEvent(type, "o-9", Map.of("id", 9), "evt-" + rule);
        assertTrue(again.path("duplicate").asBoolean());
        assertEquals("SUCCEEDED", client.awaitRun(runId, Duration.ofSeconds(60)).status());
        assertNull(client.awaitRun(runId, Duration.ofSeconds(1)).json().get("deadLetters"));
    }

    private static String readToken(String role) {
        try {
            return java.nio.file.Files.readString(server.tokenFile(role)).trim();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
