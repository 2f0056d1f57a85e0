package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ductor.support.Api.definition;
import static dev.ductor.support.Api.problem;
import static dev.ductor.support.Api.task;
import static dev.ductor.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A 403 says which role(s) the route needs and which the token has, and the refused request changes nothing. */
@QuarkusTest
@Tag("api")
class ForbiddenNamesTheRoleApiTest {

    @Inject
    DevTokenIssuer issuer;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
    }

    @Test
    void anAdminStartingARunIsToldItNeedsTheClientRoleAndNoRunStarts() {
        String workflow = unique("forbidden-start");
        api.createWorkflow(workflow, definition(task("one", "noop")));

        JsonPath refused = problem(api.as("admin").body("{\"input\": {}}").post("/api/v1/workflows/{n}/runs", workflow), 403);

        assertEquals("this needs the role client; your token has admin", refused.getString("detail"));
        assertEquals(List.of("client"), refused.getList("neededRoles"));
        assertEquals(List.of("admin"), refused.getList("yourRoles"));
        assertEquals(0, api.as("client").get("/api/v1/runs?workflow={w}", workflow).then().statusCode(200)
                .extract().jsonPath().getList("items").size(), "the refused start started nothing");
    }

    @Test
    void aRouteOfTwoRolesNamesBoth() {
        JsonPath refused = problem(api.as("client").get("/api/v1/dead-letters"), 403);

        assertEquals(List.of("admin", "operator"), refused.getList("neededRoles"));
        assertEquals("this needs the role admin or operator; your token has client", refused.getString("detail"));
    }

    @Test
    void aWorkerEditingAPoolIsToldItNeedsAdmin() {
        String pool = unique("p");
        JsonPath refused = problem(api.as("worker").body("{\"capacity\": 3}").put("/api/v1/pools/{n}", pool), 403);

        assertEquals(List.of("admin"), refused.getList("neededRoles"));
        assertEquals(List.of("worker"), refused.getList("yourRoles"));
        assertEquals(404, api.getPool(pool).statusCode(), "the refused create created nothing");
    }
}
