package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.aggregate.rule.RuleService;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import dev.ductor.support.Api;
import dev.ductor.support.LockHolder;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code PUT/GET /api/v1/rules/{name}}: every status code, the version check, and editors racing. */
@QuarkusTest
@Tag("api")
class RuleApiTest {

    private static final String START = "{\"on\": \"order.created\", \"match\": {\"country\": \"DE\"}, \"start\": {\"workflow\": \"order\"}}";
    private static final String SIGNAL = "{\"on\": \"payment.received\", \"signal\": {\"name\": \"paid\", \"payload\": {\"amount\": \"$.amount\"}}}";

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    @Inject
    RuleService rules;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    ObjectMapper mapper;

    private Api api;

    private Api api() {
        if (api == null) {
            api = new Api(issuer);
        }
        return api;
    }

    private Response put(String name, String body) {
        return api().as("admin").body(body).put("/api/v1/rules/{name}", name);
    }

    private Response put(String name, String body, String ifMatch) {
        return api().as("admin").header("If-Match", ifMatch).body(body).put("/api/v1/rules/{name}", name);
    }

    private Response get(String name) {
        return api().as("client").get("/api/v1/rules/{name}", name);
    }

    private String create(String body) {
        String name = fixtures.uniqueName("rule");
        Response created = put(name, body);
        assertEquals(201, created.statusCode(), created::asString);
        return name;
    }

    private JsonNode json(String text) {
        return fixtures.json(text);
    }

    private JsonNode tree(String text) {
        try {
            return mapper.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Test
    void theListHasTheTenantsRulesByNameWithTheirVersionsAndNoOtherTenants() {
        Api mine = new Api(issuer);
        Api other = new Api(issuer);
        assertEquals(List.of(), mine.as("client").get("/api/v1/rules").then().statusCode(200)
                .extract().jsonPath().getList("items"), "a fresh tenant has no rules");
        mine.as("admin").body(START).put("/api/v1/rules/{name}", "b-rule").then().statusCode(201);
        mine.as("admin").body(START).put("/api/v1/rules/{name}", "a-rule").then().statusCode(201);
        mine.as("admin").header("If-Match", "\"1\"").body(START.replace("DE", "NL"))
                .put("/api/v1/rules/{name}", "b-rule").then().statusCode(200);
        other.as("admin").body(START).put("/api/v1/rules/{name}", "c-rule").then().statusCode(201);

        var list = mine.as("operator").get("/api/v1/rules").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("a-rule", "b-rule"), list.getList("items.name"));
        assertEquals(List.of(1, 2), list.getList("items.version"));
        assertEquals("NL", list.getString("items[1].match.country"));
        assertEquals(List.of("c-rule"), other.as("worker").get("/api/v1/rules").then().statusCode(200)
                .extract().jsonPath().getList("items.name"));
    }

    @Test
    void creatingARuleAnswers201WithItsVersionAsETagAndItsNormalisedForm() {
        String name = fixtures.uniqueName("rule");
        Response created = put(name, START);
        assertEquals(201, created.statusCode(), created::asString);
        assertEquals("\"1\"", created.header("ETag"));
        assertEquals("/api/v1/rules/" + name, URI.create(created.header("Location")).getPath());
        JsonPath body = created.jsonPath();
        assertEquals(name, body.getString("name"));
        assertEquals(1, body.getInt("version"));
        assertEquals("order.created", body.getString("on"));
        assertEquals("DE", body.getString("match.country"));
        assertEquals("order", body.getString("start.workflow"));
        assertEquals("$", body.getString("start.input"), "the default input is the whole payload");
        assertEquals("standard", body.getString("start.tier"));
        assertTrue(body.getBoolean("enabled"));
        assertNull(body.get("signal"));
        assertNotNull(body.getString("createdAt"));

        for (String role : List.of("admin", "operator", "client", "worker")) {
            Response read = api().as(role).get("/api/v1/rules/{name}", name);
            assertEquals(200, read.statusCode(), read::asString);
            assertEquals("\"1\"", read.header("ETag"));
            assertEquals(tree(created.asString()), tree(read.asString()));
        }
    }

    @Test
    void replacingWithIfMatchAnswers200AndAppendsAnEventAndMovesTheProjection() {
        String name = create(START);
        Response updated = put(name, SIGNAL, "\"1\"");
        assertEquals(200, updated.statusCode(), updated::asString);
        assertEquals("\"2\"", updated.header("ETag"));
        assertEquals("paid", updated.jsonPath().getString("signal.name"));
        assertNull(updated.jsonPath().get("start"));

        Response read = get(name);
        assertEquals("\"2\"", read.header("ETag"));
        assertEquals("payment.received", read.jsonPath().getString("on"));
        assertEquals(2, fixtures.count("SELECT count(*) FROM eec_aggregate_event WHERE aggregate_type = 'rule' AND tenant = ?1 AND name = ?2",
                api().tenant, name));
        assertEquals(2, fixtures.count("SELECT db_record_version FROM eec_rule WHERE tenant = ?1 AND name = ?2", api().tenant, name));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_rule WHERE tenant = ?1 AND name = ?2 AND on_type = 'payment.received'",
                api().tenant, name));

        // A GET's document, edited and sent back, is accepted: read-only fields are ignored.
        String echoed = read.asString().replace("\"amount\":\"$.amount\"", "\"total\":\"$.amount\"");
        Response again = put(name, echoed, read.header("ETag"));
        assertEquals(200, again.statusCode(), again::asString);
        assertEquals("$.amount", again.jsonPath().getString("signal.payload.total"));
        assertEquals("\"3\"", again.header("ETag"));
    }

    @Test
    void replacingWithoutIfMatchIs428AndSavesNothing() {
        String name = create(START);
        JsonPath problem = Api.problem(put(name, SIGNAL), 428);
        assertTrue(problem.getString("detail").contains("If-Match"), problem.prettify());
        assertEquals("\"1\"", get(name).header("ETag"));
        assertEquals("order.created", get(name).jsonPath().getString("on"));
    }

    @Test
    void aStaleIfMatchIs409WithTheCurrentRuleAndWhatWasSentAndSavesNothing() {
        String name = create(START);
        assertEquals(200, put(name, SIGNAL, "\"1\"").statusCode());
        String stale = START.replace("DE", "FR");
        Response conflict = put(name, stale, "\"1\"");
        JsonPath problem = Api.problem(conflict, 409);
        assertFalse(problem.getBoolean("saved"));
        assertEquals(1, problem.getInt("expectedVersion"));
        assertEquals(2, problem.getInt("currentVersion"));
        assertEquals(2, problem.getInt("current.version"));
        assertEquals("payment.received", problem.getString("current.on"));
        assertEquals(json(stale), tree(conflict.asString()).get("rejected"), "the 409 keeps what was sent");
        assertTrue(problem.getString("detail").contains("NOT saved"), problem.getString("detail"));
        assertEquals("\"2\"", get(name).header("ETag"));
        assertEquals("payment.received", get(name).jsonPath().getString("on"));
        // A weak or bare ETag is read the same way.
        assertEquals(200, put(name, stale, "W/\"2\"").statusCode());
        assertEquals(200, put(name, START, "3").statusCode());
    }

    @Test
    void anIfMatchForARuleThatDoesNotExistIs409() {
        String name = fixtures.uniqueName("rule");
        JsonPath problem = Api.problem(put(name, START, "\"1\""), 409);
        assertFalse(problem.getBoolean("saved"));
        Api.problem(get(name), 404);
    }

    @Test
    void invalidBodiesAre400WithEveryViolationAndSaveNothing() {
        String name = fixtures.uniqueName("rule");
        JsonPath problem = Api.problem(put(name, "{\"on\": \"\", \"match\": {\"a..b\": 1}, \"start\": {\"workflow\": \"x\"},"
                + " \"signal\": {\"name\": \"s\", \"payload\": \"$nope\"}, \"extra\": 1}"), 400);
        List<String> fields = problem.getList("violations.field");
        assertTrue(fields.containsAll(List.of("on", "match", "signal.payload", "extra")), fields::toString);
        assertTrue(problem.getList("violations").size() >= 5, problem.prettify());
        assertTrue(problem.getString("detail").contains("Nothing was saved"), problem.getString("detail"));
        for (String body : List.of("[]", "\"rule\"", "{}", "{\"on\": \"t\"}", "{\"on\": \"t\", \"start\": {\"workflow\": \"wf\", \"tier\": \"gold\"}}",
                "{\"on\": \"t\", \"start\": {\"workflow\": \"wf\"}, \"enabled\": 1}", "{\"name\": \"other\", \"on\": \"t\", \"start\": {\"workflow\": \"wf\"}}")) {
            Api.problem(put(name, body), 400);
        }
        Api.problem(put(name, "{\"on\": "), 400);
        Api.problem(put(name, "{\"on\": \"t\", \"match\": {\"x\": \"\\u0000\"}, \"start\": {\"workflow\": \"wf\"}}"), 400);
        Api.problem(put("bad:name", START), 400);
        Api.problem(put(name, START, "abc"), 400);
        Api.problem(put(name, START, "*"), 400);
        Api.problem(get(name), 404);
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_aggregate_event WHERE aggregate_type = 'rule' AND tenant = ?1", api().tenant));
    }

    @Test
    void withoutATokenIs401AndTheWrongRoleIs403() {
        String name = create(START);
        Api.problem(given().contentType("application/json").body(START).put("/api/v1/rules/{name}", name), 401);
        Api.problem(given().get("/api/v1/rules/{name}", name), 401);
        Api.problem(given().header("Authorization", "Bearer not-a-jwt").get("/api/v1/rules/{name}", name), 401);
        for (String role : List.of("client", "operator", "worker")) {
            Api.problem(api().as(role).header("If-Match", "\"1\"").body(SIGNAL).put("/api/v1/rules/{name}", name), 403);
        }
        assertEquals("order.created", get(name).jsonPath().getString("on"));
    }

    @Test
    void anUnknownRuleAndAnotherTenantsRuleAre404() {
        String name = create(START);
        Api.problem(get(fixtures.uniqueName("nope")), 404);
        Api other = new Api(issuer);
        Api.problem(other.as("client").get("/api/v1/rules/{name}", name), 404);
        // The same name in another tenant is another rule.
        assertEquals(201, other.as("admin").body(SIGNAL).put("/api/v1/rules/{name}", name).statusCode());
        assertEquals("order.created", get(name).jsonPath().getString("on"));
    }

    // ---- editors racing ----------------------------------------------------------------------------------

    private List<HttpResponse<String>> together(List<String> bodies, String name, String ifMatch) throws Exception {
        URI uri = URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/api/v1/rules/" + name);
        String token = issuer.mint("admin", api().tenant);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        CountDownLatch ready = new CountDownLatch(bodies.size());
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(bodies.size());
        try {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (String body : bodies) {
                futures.add(pool.submit(() -> {
                    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                            .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                            .PUT(HttpRequest.BodyPublishers.ofString(body));
                    if (ifMatch != null) {
                        request.header("If-Match", ifMatch);
                    }
                    HttpRequest built = request.build();
                    ready.countDown();
                    go.await();
                    return client.send(built, HttpResponse.BodyHandlers.ofString());
                }));
            }
            assertTrue(ready.await(10, TimeUnit.SECONDS));
            go.countDown();
            List<HttpResponse<String>> responses = new ArrayList<>();
            for (Future<HttpResponse<String>> future : futures) {
                responses.add(future.get(60, TimeUnit.SECONDS));
            }
            return responses;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void twoEditorsOnOneVersionOneWinsAndTheOtherGets409WithBothVersions() throws Exception {
        String name = create(START);
        for (int round = 1; round <= 5; round++) {
            String mine = START.replace("DE", "A" + round);
            String theirs = START.replace("DE", "B" + round);
            List<HttpResponse<String>> responses = together(List.of(mine, theirs), name, "\"" + round + "\"");
            String all = responses.stream().map(r -> r.statusCode() + " " + r.body()).toList().toString();
            HttpResponse<String> won = responses.stream().filter(r -> r.statusCode() == 200).findFirst().orElseThrow(() -> new AssertionError(all));
            HttpResponse<String> lost = responses.stream().filter(r -> r.statusCode() == 409).findFirst().orElseThrow(() -> new AssertionError(all));
            assertEquals(2, responses.size());
            assertEquals("\"" + (round + 1) + "\"", won.headers().firstValue("ETag").orElseThrow());
            JsonNode problem = tree(lost.body());
            assertTrue(lost.headers().firstValue("Content-Type").orElseThrow().startsWith("application/problem+json"));
            assertFalse(problem.get("saved").asBoolean());
            assertEquals(round, problem.get("expectedVersion").asLong(), lost.body());
            assertEquals(round + 1, problem.get("currentVersion").asLong(), lost.body());
            JsonNode winner = tree(won.body());
            assertEquals(winner, problem.get("current"), "the 409 shows the winner's rule as it was saved");
            String rejected = winner.at("/match/country").asText().startsWith("A") ? theirs : mine;
            assertEquals(json(rejected), problem.get("rejected"), "and keeps the loser's input");
            assertEquals(winner, tree(get(name).asString()));
        }
        assertEquals(6, fixtures.count("SELECT count(*) FROM eec_aggregate_event WHERE aggregate_type = 'rule' AND tenant = ?1 AND name = ?2",
                api().tenant, name));
    }

    @Test
    void twoCreatorsOfOneNameOneGets201AndTheOtherIsRefused() throws Exception {
        String name = fixtures.uniqueName("rule");
        List<HttpResponse<String>> responses = together(List.of(START, SIGNAL), name, null);
        String all = responses.stream().map(r -> r.statusCode() + " " + r.body()).toList().toString();
        HttpResponse<String> won = responses.stream().filter(r -> r.statusCode() == 201).findFirst().orElseThrow(() -> new AssertionError(all));
        // The loser either lost the append at version 1 (409, with the winner's rule) or read the stream after the
        // winner committed, when its PUT is an update without If-Match (428). Either way nothing of it was saved.
        HttpResponse<String> lost = responses.stream().filter(r -> r != won).findFirst().orElseThrow();
        assertTrue(lost.statusCode() == 409 || lost.statusCode() == 428, all);
        if (lost.statusCode() == 409) {
            assertEquals(1, tree(lost.body()).get("currentVersion").asLong());
            assertEquals(tree(won.body()), tree(lost.body()).get("current"));
        }
        assertEquals(tree(won.body()), tree(get(name).asString()));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_rule WHERE tenant = ?1 AND name = ?2", api().tenant, name));
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_aggregate_event WHERE aggregate_type = 'rule' AND tenant = ?1 AND name = ?2",
                api().tenant, name));
    }

    @Test
    void anAppendThatLosesTheRaceAfterPassingTheVersionCheckIs409WithTheRuleReadAfresh() throws Exception {
        String name = create(START);
        String first = START.replace("DE", "FIRST");
        String second = START.replace("DE", "SECOND");
        CountDownLatch appended = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // The first editor appends version 2 and holds its transaction open...
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> QuarkusTransaction.requiringNew().run(() -> {
            rules.put(api().tenant, name, json(first), OptionalLong.of(1), "first");
            appended.countDown();
            try {
                assertTrue(release.await(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }));
        assertTrue(appended.await(30, TimeUnit.SECONDS));
        // ...the second reads version 1 (the first is not committed), passes the check, and blocks on the unique
        // (aggregate_id, version) of its append until the first commits; then its insert does nothing.
        CompletableFuture<Response> racer = CompletableFuture.supplyAsync(() -> put(name, second, "\"1\""));
        LockHolder.awaitSomeoneBlocked(dataSource);
        release.countDown();
        holder.get(30, TimeUnit.SECONDS);
        JsonPath problem = Api.problem(racer.get(30, TimeUnit.SECONDS), 409);
        assertEquals(1, problem.getInt("expectedVersion"));
        assertEquals(2, problem.getInt("currentVersion"));
        assertEquals("FIRST", problem.getString("current.match.country"));
        assertEquals("SECOND", problem.getString("rejected.match.country"));
        assertEquals("FIRST", get(name).jsonPath().getString("match.country"));
        assertEquals(2, fixtures.count("SELECT db_record_version FROM eec_rule WHERE tenant = ?1 AND name = ?2", api().tenant, name));
    }
}
