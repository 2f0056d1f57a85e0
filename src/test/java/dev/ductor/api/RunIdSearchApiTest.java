package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
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

/** GET /runs?runId= finds a run by its whole id or by any part of it, within the caller's tenant. */
@QuarkusTest
@Tag("api")
class RunIdSearchApiTest {

    @Inject
    DevTokenIssuer issuer;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
    }

    @Test
    void aRunIsFoundByItsLastDigitsByAMiddlePartAndByItsWholeIdButNotFromAnotherTenant() {
        String workflow = unique("findable");
        api.createWorkflow(workflow, definition(task("one", "noop")));
        List<String> runs = List.of(api.start(workflow), api.start(workflow), api.start(workflow));
        String wanted = runs.get(1);

        // The first 8 digits of UUIDv7s started together are alike; their last 12 are not.
        assertEquals(List.of(wanted), search(api, wanted.substring(24)));
        assertEquals(List.of(wanted), search(api, wanted.substring(24).toUpperCase()), "any case");
        assertEquals(List.of(wanted), search(api, wanted.substring(19, 32)), "a part with a dash");
        assertEquals(List.of(wanted), search(api, wanted));
        assertEquals(List.of(), search(new Api(issuer), wanted.substring(24)), "another tenant's run is not found");
        assertEquals(List.of(), search(new Api(issuer), wanted), "not by its whole id either");
        assertEquals(List.of(wanted), api.as("client").get("/api/v1/runs?runId={p}&workflow={w}", wanted.substring(26), workflow)
                .then().statusCode(200).extract().jsonPath().getList("items.runId"), "with the other filters");
    }

    @Test
    void aPartThatIsNotHexOrTooShortOrAMalformedWholeIdIs400() {
        for (String bad : List.of("abc", "xyz12", "12%4", "0123456789abcdef0123456789abcdef0123", "01234567-89ab-cdef-0123-456789abcdez")) {
            problem(api.as("client").get("/api/v1/runs?runId={p}", bad), 400);
        }
    }

    private static List<String> search(Api api, String part) {
        return api.as("client").get("/api/v1/runs?runId={p}", part).then().statusCode(200).extract().jsonPath().getList("items.runId");
    }
}
