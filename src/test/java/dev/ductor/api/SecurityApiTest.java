package dev.ductor.api;

import dev.ductor.support.Api;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.smallrye.jwt.build.Jwt;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

import static dev.ductor.support.Api.definition;
import static dev.ductor.support.Api.problem;
import static dev.ductor.support.Api.task;
import static dev.ductor.support.Api.unique;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
@Tag("api")
class SecurityApiTest {

    @Inject
    DevTokenIssuer issuer;

    Api api;

    /** An existing workflow and run of {@link #api}'s tenant, so that only the token decides the answer. */
    String workflow;
    String runId;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
        workflow = unique("secured");
        api.createWorkflow(workflow, Api.chain3());
        runId = api.start(workflow);
    }

    /** Every route of this contract section, called with the given request. */
    private List<Call> routes() {
        String body = Api.chain3();
        return List.of(
                new Call("PUT /workflows/{name}", r -> r.body(body).put("/api/v1/workflows/{name}", unique("new"))),
                new Call("PUT /workflows/{name} (update)", r -> r.header("If-Match", "\"0\"").body(body)
                        .put("/api/v1/workflows/{name}", workflow)),
                new Call("GET /workflows/{name}", r -> r.get("/api/v1/workflows/{name}", workflow)),
                new Call("GET /workflows", r -> r.get("/api/v1/workflows")),
                new Call("POST /workflows/{name}/runs", r -> r.body("{}").post("/api/v1/workflows/{name}/runs", workflow)),
                new Call("GET /runs/{runId}", r -> r.get("/api/v1/runs/{id}", runId)),
                new Call("GET /runs", r -> r.get("/api/v1/runs")),
                new Call("GET /runs/{runId}/history", r -> r.get("/api/v1/runs/{id}/history", runId)));
    }

    private record Call(String name, Function<RequestSpecification, Response> send) {
    }

    @Test
    void everyRouteWithoutATokenIs401() {
        for (Call call : routes()) {
            Response response = call.send().apply(given().contentType(ContentType.JSON));
            assertProblem(call, response, 401);
        }
        assertNothingChanged();
    }

    @Test
    void everyRouteWithAGarbageTokenIs401() {
        for (String header : List.of("Bearer garbage", "Bearer a.b.c", "Bearer ", "Basic YWRtaW46YWRtaW4=",
                "Bearer " + api.token("admin").substring(0, api.token("admin").length() - 5) + "xxxxx")) {
            for (Call call : routes()) {
                Response response = call.send().apply(given().contentType(ContentType.JSON).header("Authorization", header));
                assertProblem(call, response, 401);
            }
        }
        assertNothingChanged();
    }

    @Test
    void aTokenSignedByAnotherKeyIs401() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair foreign = generator.generateKeyPair();
        String token = Jwt.issuer("ductor-dev").subject("intruder").upn("intruder")
                .groups(java.util.Set.of("admin", "client")).claim("tenant", api.tenant)
                .expiresIn(3600).sign(foreign.getPrivate());

        for (Call call : routes()) {
            assertProblem(call, call.send().apply(bearer(token)), 401);
        }
        assertNothingChanged();
    }

    @Test
    void anExpiredTokenIs401() {
        Instant now = Instant.now();
        String token = Jwt.issuer("ductor-dev").subject("late").upn("late")
                .groups(java.util.Set.of("admin", "client")).claim("tenant", api.tenant)
                .issuedAt(now.minusSeconds(7200)).expiresAt(now.minusSeconds(3600)).sign();

        for (Call call : routes()) {
            assertProblem(call, call.send().apply(bearer(token)), 401);
        }
    }

    @Test
    void aTokenOfAnotherIssuerIs401() {
        String token = Jwt.issuer("https://evil.example.com").subject("evil").upn("evil")
                .groups(java.util.Set.of("admin", "client")).claim("tenant", api.tenant)
                .expiresIn(3600).sign();

        for (Call call : routes()) {
            assertProblem(call, call.send().apply(bearer(token)), 401);
        }
    }

    @Test
    void onlyAnAdminMayPutAWorkflow() {
        for (String role : List.of("client", "operator", "worker")) {
            String name = unique("forbidden");
            assertProblem(role + " PUT new", api.as(role).body(Api.chain3()).put("/api/v1/workflows/{name}", name), 403);
            problem(api.getWorkflow(name), 404);

            assertProblem(role + " PUT update", api.as(role).header("If-Match", "\"0\"")
                    .body(definition(task("x", "noop"))).put("/api/v1/workflows/{name}", workflow), 403);
        }
        assertNothingChanged();
    }

    @Test
    void onlyAClientMayStartARun() {
        for (String role : List.of("admin", "operator", "worker")) {
            assertProblem(role + " start", api.as(role).body("{}").post("/api/v1/workflows/{name}/runs", workflow), 403);
        }
        List<String> runs = Api.ids(api.as("client").queryParam("workflow", workflow).get("/api/v1/runs")
                .then().statusCode(200).extract().jsonPath());
        assertEquals(List.of(runId), runs, "no refused start may create a run");
    }

    @Test
    void anyRoleMayReadRuns() {
        for (String role : List.of("admin", "operator", "client", "worker")) {
            api.as(role).get("/api/v1/runs/{id}", runId).then().statusCode(200);
            api.as(role).get("/api/v1/runs/{id}/history", runId).then().statusCode(200);
            api.as(role).get("/api/v1/runs").then().statusCode(200);
        }
    }

    @Test
    void aTokenWithoutATenantMayDoNothing() {
        String token = Jwt.issuer("ductor-dev").subject("nobody").upn("nobody")
                .groups(java.util.Set.of("admin", "operator", "client", "worker")).expiresIn(3600).sign();

        for (Call call : routes()) {
            Response response = call.send().apply(bearer(token));
            assertProblem(call, response, 403);
        }
        assertNothingChanged();
    }

    @Test
    void anotherTenantsRunIs404() {
        Api stranger = new Api(issuer);

        for (String role : List.of("admin", "operator", "client", "worker")) {
            problem(stranger.as(role).get("/api/v1/runs/{id}", runId), 404);
            problem(stranger.as(role).get("/api/v1/runs/{id}/history", runId), 404);
        }
        assertFalse(Api.ids(stranger.as("client").get("/api/v1/runs").then().statusCode(200).extract().jsonPath())
                .contains(runId));
        assertEquals(List.of(), Api.ids(stranger.as("client").queryParam("workflow", workflow).get("/api/v1/runs")
                .then().statusCode(200).extract().jsonPath()));
        // and the owner still sees it
        api.run(runId).then().statusCode(200);
    }

    @Test
    void anotherTenantsWorkflowIs404() {
        Api stranger = new Api(issuer);

        problem(stranger.getWorkflow(workflow), 404);
        problem(stranger.startRun(workflow, "{}"), 404);
        List<String> names = stranger.as("client").get("/api/v1/workflows").then().statusCode(200)
                .extract().jsonPath().getList("items.name", String.class);
        assertFalse(names.contains(workflow), names::toString);

        // The same name in another tenant is another workflow: creating it there is a 201, not a conflict.
        Response created = stranger.putWorkflow(workflow, definition(task("mine", "noop")));
        assertEquals(201, created.statusCode(), created::asString);
        assertEquals(List.of("a", "b", "c"), api.getWorkflow(workflow).jsonPath().getList("nodes.id"));
        assertEquals(List.of("mine"), stranger.getWorkflow(workflow).jsonPath().getList("nodes.id"));
    }

    @Test
    void probesStayOpen() {
        given().get("/q/health/live").then().statusCode(200);
        given().get("/q/health/ready").then().statusCode(200);
    }

    @Test
    void unknownRunIdsNeedATokenToo() {
        assertProblem("GET unknown run", given().get("/api/v1/runs/{id}", UUID.randomUUID()), 401);
        assertProblem("GET malformed run", given().get("/api/v1/runs/{id}", "nope"), 401);
    }

    private static RequestSpecification bearer(String token) {
        return given().contentType(ContentType.JSON).header("Authorization", "Bearer " + token);
    }

    private static void assertProblem(Call call, Response response, int status) {
        assertProblem(call.name(), response, status);
    }

    private static void assertProblem(String what, Response response, int status) {
        assertEquals(status, response.statusCode(), () -> what + ": " + response.statusCode() + " " + response.asString());
        Api.problem(response, status);
        if (status == 401) {
            assertTrue(response.header("WWW-Authenticate") != null, what + ": a 401 names the Bearer scheme");
        }
    }

    private void assertNothingChanged() {
        Response got = api.getWorkflow(workflow);
        assertEquals(200, got.statusCode());
        assertEquals("\"0\"", got.header("ETag"), "no refused PUT may store a revision");
        List<String> runs = Api.ids(api.as("client").queryParam("workflow", workflow).get("/api/v1/runs")
                .then().statusCode(200).extract().jsonPath());
        assertEquals(List.of(runId), runs, "no refused start may create a run");
    }
}
