package dev.ductor.api;

import dev.ductor.support.Api;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.ductor.support.Api.definition;
import static dev.ductor.support.Api.node;
import static dev.ductor.support.Api.problem;
import static dev.ductor.support.Api.task;
import static dev.ductor.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
@Tag("api")
class WorkflowApiTest {

    @Inject
    DevTokenIssuer issuer;

    /** The application's own PostgreSQL, used only to hold a row lock in the update race. */
    @Inject
    DataSource dataSource;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
    }

    @Test
    void creatingANewWorkflowAnswers201WithETagZeroAndLocation() {
        String name = unique("wf");
        Response created = api.putWorkflow(name, Api.chain3());

        assertEquals(201, created.statusCode(), created::asString);
        assertEquals("\"0\"", created.header("ETag"));
        assertEquals("/api/v1/workflows/" + name, Api.locationPath(created));
        JsonPath body = created.jsonPath();
        assertEquals(name, body.getString("name"));
        assertEquals(1, body.getInt("revision"));
        assertEquals(0, body.getInt("version"));
        assertEquals(List.of("a", "b", "c"), body.getList("nodes.id"));
    }

    @Test
    void getReturnsTheWorkflowWithItsETag() {
        String name = unique("wf");
        api.createWorkflow(name, Api.chain3());

        Response got = api.getWorkflow(name);

        assertEquals(200, got.statusCode(), got::asString);
        assertEquals("\"0\"", got.header("ETag"));
        assertEquals(name, got.jsonPath().getString("name"));
        assertEquals(1, got.jsonPath().getInt("revision"));
        assertEquals(0, got.jsonPath().getInt("version"));
        assertEquals(List.of("a", "b", "c"), got.jsonPath().getList("nodes.id"));
    }

    @Test
    void anyRoleMayReadWorkflows() {
        String name = unique("wf");
        api.createWorkflow(name, Api.chain3());

        for (String role : List.of("admin", "operator", "client", "worker")) {
            api.as(role).get("/api/v1/workflows/{name}", name).then().statusCode(200);
            api.as(role).get("/api/v1/workflows").then().statusCode(200);
        }
    }

    @Test
    void getOfAnUnknownWorkflowIs404() {
        problem(api.getWorkflow(unique("missing")), 404);
    }

    @Test
    void listShowsTheTenantsWorkflows() {
        String first = unique("wf-a");
        String second = unique("wf-b");
        api.createWorkflow(first, Api.chain3());
        api.createWorkflow(second, definition(task("only", "noop")));

        Response listed = api.as("operator").get("/api/v1/workflows");

        assertEquals(200, listed.statusCode(), listed::asString);
        List<String> names = listed.jsonPath().getList("items.name", String.class);
        assertTrue(names.containsAll(List.of(first, second)), names::toString);
        assertEquals(2, names.size(), "a fresh tenant has only its own workflows: " + names);
    }

    @Test
    void updatingWithoutIfMatchIs428AndSavesNothing() {
        String name = unique("wf");
        api.createWorkflow(name, Api.chain3());

        JsonPath problem = problem(api.putWorkflow(name, definition(task("x", "noop"))), 428);

        assertTrue(problem.getString("detail").toLowerCase().contains("nothing was saved"), problem.prettify());
        assertUnchanged(name);
    }

    @Test
    void updatingWithAStaleIfMatchIs409WithCurrentAndRejectedAndSavesNothing() {
        String name = unique("wf");
        api.createWorkflow(name, Api.chain3());
        String sent = definition(task("x", "noop"));

        JsonPath problem = problem(api.putWorkflow(name, sent, "\"7\""), 409);

        assertTrue(problem.getString("detail").toLowerCase().contains("not saved"), problem.prettify());
        Map<String, Object> current = problem.getMap("current");
        assertNotNull(current, "409 body needs 'current': " + problem.prettify());
        assertEquals(0, problem.getInt("current.version"));
        assertEquals(1, problem.getInt("current.revision"));
        assertEquals(List.of("a", "b", "c"), problem.getList("current.nodes.id"));
        assertNotNull(problem.getMap("rejected"), "409 body needs 'rejected': " + problem.prettify());
        assertEquals(List.of("x"), problem.getList("rejected.nodes.id"));
        assertUnchanged(name);
    }

    @Test
    void updatingWithTheCurrentIfMatchStoresANewRevision() {
        String name = unique("wf");
        api.createWorkflow(name, Api.chain3());

        Response updated = api.putWorkflow(name, definition(task("x", "noop")), "\"0\"");

        assertEquals(200, updated.statusCode(), updated::asString);
        assertEquals("\"1\"", updated.header("ETag"));
        assertEquals(2, updated.jsonPath().getInt("revision"));
        assertEquals(1, updated.jsonPath().getInt("version"));

        Response got = api.getWorkflow(name);
        assertEquals("\"1\"", got.header("ETag"));
        assertEquals(2, got.jsonPath().getInt("revision"));
        assertEquals(List.of("x"), got.jsonPath().getList("nodes.id"));

        // The old ETag is stale now.
        problem(api.putWorkflow(name, Api.chain3(), "\"0\""), 409);
        // A bare number is accepted as well as the quoted ETag.
        Response third = api.putWorkflow(name, Api.chain3(), "1");
        assertEquals(200, third.statusCode(), third::asString);
        assertEquals(3, third.jsonPath().getInt("revision"));
        assertEquals("\"2\"", third.header("ETag"));
    }

    @Test
    void theReadOnlyFieldsOfAGetMayBeSentBack() {
        String name = unique("wf");
        api.createWorkflow(name, Api.chain3());
        Response got = api.getWorkflow(name);

        Response updated = api.putWorkflow(name, got.asString(), got.header("ETag"));

        assertEquals(200, updated.statusCode(), updated::asString);
        assertEquals(2, updated.jsonPath().getInt("revision"));
    }

    @Test
    void ifMatchStarOrGarbageIsRefusedAndSavesNothing() {
        String name = unique("wf");
        api.createWorkflow(name, Api.chain3());

        for (String ifMatch : List.of("*", "garbage", "\"abc\"", "\"-1\"")) {
            Response response = api.putWorkflow(name, definition(task("x", "noop")), ifMatch);
            int status = response.statusCode();
            assertTrue(status >= 400 && status < 500, () -> "If-Match " + ifMatch + " gave " + status);
            problem(response, status);
        }
        assertUnchanged(name);
    }

    @Test
    void aCycleIs422NamingTheNode() {
        assertInvalid(definition(task("a", "noop", "b"), task("b", "noop", "a")), List.of("a", "b"));
    }

    @Test
    void anUnknownDependencyIs422NamingTheNode() {
        assertInvalid(definition(task("a", "noop"), task("b", "noop", "ghost")), List.of("b"));
    }

    @Test
    void aDuplicateNodeIdIs422NamingTheNode() {
        assertInvalid(definition(task("a", "noop"), task("a", "noop")), List.of("a"));
    }

    @Test
    void anUnknownNodeTypeIs422NamingTheNode() {
        assertInvalid(definition(task("a", "noop"), node("weird", "banana", "")), List.of("weird"));
    }

    @Test
    void anUnknownHandlerIs422NamingTheNode() {
        assertInvalid(definition(task("a", "noop"), task("h", "no-such-handler", "a")), List.of("h"));
    }

    @Test
    void aRetentionIsKeptWithTheRevisionAndShown() {
        String name = unique("wf");
        String body = "{\"retention\": \"P7D\", \"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]}";

        Response created = api.putWorkflow(name, body);

        assertEquals(201, created.statusCode(), created::asString);
        assertEquals("P7D", created.jsonPath().getString("retention"));
        assertEquals("P7D", api.getWorkflow(name).jsonPath().getString("retention"));
        Response plain = api.putWorkflow(unique("wf"), Api.chain3());
        assertFalse(plain.asString().contains("retention"), "no retention of its own: the key is left out: " + plain.asString());
    }

    @Test
    void aRetentionThatIsNotAPositiveDurationIs422NamingTheFieldAndStoresNothing() {
        for (String retention : List.of("\"soon\"", "\"PT0S\"", "\"-P1D\"", "7")) {
            String name = unique("wf");
            String body = "{\"retention\": " + retention + ", \"nodes\": [{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]}";

            JsonPath problem = problem(api.putWorkflow(name, body), 422);

            List<Map<String, Object>> violations = problem.getList("violations");
            assertTrue(violations.stream().anyMatch(v -> "retention".equals(v.get("field"))), () -> retention + ": " + problem.prettify());
            problem(api.getWorkflow(name), 404);
        }
    }

    @Test
    void anInvalidUpdateIs422AndKeepsTheStoredRevision() {
        String name = unique("wf");
        api.createWorkflow(name, Api.chain3());

        JsonPath problem = problem(api.putWorkflow(name, definition(task("a", "noop", "a")), "\"0\""), 422);

        assertFalse(problem.getList("violations").isEmpty());
        assertUnchanged(name);
    }

    @Test
    void aBodyThatIsNotJsonIs400AndStoresNothing() {
        String name = unique("wf");

        problem(api.putWorkflow(name, "this is { not json"), 400);
        problem(api.putWorkflow(name, "{\"nodes\": [ {\"id\": \"a\", "), 400);

        problem(api.getWorkflow(name), 404);
    }

    @Test
    void aDefinitionThatIsNotAnObjectIsRefusedAndStoresNothing() {
        String name = unique("wf");

        for (String body : List.of("[1, 2]", "\"text\"", "{}", "{\"nodes\": []}")) {
            Response response = api.putWorkflow(name, body);
            int status = response.statusCode();
            assertTrue(status == 400 || status == 422, () -> body + " gave " + status + ": " + response.asString());
            problem(response, status);
        }
        problem(api.getWorkflow(name), 404);
    }

    @Test
    void aBadWorkflowNameIs400() {
        problem(api.putWorkflow("bad!name", Api.chain3()), 400);
    }

    @Test
    void concurrentCreatesOfOneNameStoreOneWorkflowAndTheOthersAreRefused() throws Exception {
        String name = unique("wf");

        List<HttpResponse<String>> responses = api.concurrently(8, "admin", "PUT", "/api/v1/workflows/" + name,
                Api.chain3(), Map.of());

        assertUnchanged(name);
        assertEquals(1, responses.stream().filter(r -> r.statusCode() == 201).count(), () -> Api.describe(responses));
        // A loser that overlapped the winner's insert is told 409; one that came after it is updating without
        // If-Match, 428. Both say nothing was saved; neither may be an error.
        assertTrue(responses.stream().allMatch(r -> r.statusCode() == 201 || r.statusCode() == 409 || r.statusCode() == 428),
                () -> "every loser must be told 409 or 428, not an error:\n" + Api.describe(responses));
        responses.stream().filter(r -> r.statusCode() != 201).forEach(r -> {
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith(Api.PROBLEM_JSON), r::body);
            assertTrue(JsonPath.from(r.body()).getString("detail").toLowerCase().contains("saved"), r.body());
            if (r.statusCode() == 409) {
                assertEquals(0, JsonPath.from(r.body()).getInt("current.version"), r.body());
            }
        });
    }

    /**
     * Editors racing from one version: one wins, every other one must hear 409 "not saved". To make the
     * requests really overlap, a plain JDBC transaction holds the workflow's row lock while they arrive (reads
     * are not blocked, so every editor passes the version check), and lets go once they all wait on a lock.
     */
    @Test
    void concurrentUpdatesFromOneVersionSaveExactlyOneAndTheOthersAre409() throws Exception {
        String name = unique("wf");
        api.createWorkflow(name, Api.chain3());
        int editors = 6;

        List<HttpResponse<String>> responses;
        try (Connection lock = dataSource.getConnection()) {
            lock.setAutoCommit(false);
            try (PreparedStatement select = lock.prepareStatement(
                    "SELECT 1 FROM eec_workflow_definition WHERE tenant = ? AND name = ? FOR UPDATE")) {
                select.setString(1, api.tenant);
                select.setString(2, name);
                select.executeQuery().close();
            }
            responses = api.concurrently(editors, "admin", "PUT", "/api/v1/workflows/" + name,
                    definition(task("x", "noop")), Map.of("If-Match", "\"0\""),
                    () -> {
                        awaitLockWaiters(lock, editors, Duration.ofSeconds(15));
                        lock.rollback(); // let them go
                    });
        }

        // Whatever the answers, exactly one revision was stored.
        Response got = api.getWorkflow(name);
        assertEquals("\"1\"", got.header("ETag"), got::asString);
        assertEquals(2, got.jsonPath().getInt("revision"));
        assertEquals(1, responses.stream().filter(r -> r.statusCode() == 200).count(), () -> Api.describe(responses));
        assertTrue(responses.stream().allMatch(r -> r.statusCode() == 200 || r.statusCode() == 409),
                () -> "every editor who lost the race must be told 409 (not saved), not an error:\n" + Api.describe(responses));
        responses.stream().filter(r -> r.statusCode() == 409).forEach(r -> {
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith(Api.PROBLEM_JSON), r::body);
            JsonPath problem = JsonPath.from(r.body());
            assertTrue(problem.getString("detail").toLowerCase().contains("not saved"), r.body());
        });
    }

    /** Waits (bounded) until {@code count} other sessions wait on a lock; returns either way. */
    private static void awaitLockWaiters(Connection connection, int count, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        try (PreparedStatement waiting = connection.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()")) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = waiting.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) >= count) {
                        return;
                    }
                }
                Api.sleep(50);
            }
        }
    }

    private void assertInvalid(String definition, List<String> offendingNodes) {
        String name = unique("wf");

        JsonPath problem = problem(api.putWorkflow(name, definition), 422);

        List<Map<String, Object>> violations = problem.getList("violations");
        assertNotNull(violations, problem.prettify());
        assertFalse(violations.isEmpty(), problem.prettify());
        assertTrue(violations.stream().anyMatch(v -> offendingNodes.contains((String) v.get("node"))),
                () -> "a violation should name one of " + offendingNodes + ": " + problem.prettify());
        assertTrue(problem.getString("detail").toLowerCase().contains("nothing was saved"), problem.prettify());
        problem(api.getWorkflow(name), 404);
    }

    private void assertUnchanged(String name) {
        Response got = api.getWorkflow(name);
        assertEquals(200, got.statusCode());
        assertEquals("\"0\"", got.header("ETag"));
        assertEquals(1, got.jsonPath().getInt("revision"));
        assertEquals(List.of("a", "b", "c"), got.jsonPath().getList("nodes.id"));
    }
}
