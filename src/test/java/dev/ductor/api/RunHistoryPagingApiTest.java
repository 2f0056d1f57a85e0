package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.ductor.support.Api.definition;
import static dev.ductor.support.Api.problem;
import static dev.ductor.support.Api.task;
import static dev.ductor.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code GET /runs/{id}/history} is paged (issue 28): the body stays the JSON array of transitions in seq order, and an
 * RFC 8288 {@code Link: <...>; rel="next"} header names the next page while more follow.
 */
@QuarkusTest
@Tag("api")
class RunHistoryPagingApiTest {

    private static final Pattern NEXT = Pattern.compile("<([^>]+)>;\\s*rel=\"next\"");

    @Inject
    DevTokenIssuer issuer;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
    }

    /** Ten parallel noop tasks: 1 start + 2 per node + 1 end = 22 transitions. */
    private String finishedRun() {
        String workflow = unique("history");
        String[] nodes = new String[10];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = task("n" + i, "noop");
        }
        api.createWorkflow(workflow, definition(nodes));
        String runId = api.start(workflow);
        api.awaitTerminal(runId);
        return runId;
    }

    @Test
    void followingNextVisitsEveryTransitionOnceInSeqOrder() {
        String runId = finishedRun();
        List<Long> seqs = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        String next = "/api/v1/runs/" + runId + "/history?limit=5";
        while (next != null) {
            Response page = api.as("client").get(next);
            assertEquals(200, page.statusCode(), page::asString);
            List<Long> got = page.jsonPath().getList("seq", Long.class);
            sizes.add(got.size());
            seqs.addAll(got);
            String link = page.header("Link");
            if (link == null) {
                next = null;
            } else {
                Matcher m = NEXT.matcher(link);
                assertTrue(m.find(), link);
                next = m.group(1);
                assertTrue(next.contains("limit=5"), "the next page keeps the limit: " + next);
            }
            assertTrue(sizes.size() <= 10, "paging does not end: " + seqs);
        }
        assertEquals(List.of(5, 5, 5, 5, 2), sizes);
        for (int i = 0; i < seqs.size(); i++) {
            assertEquals(i + 1, seqs.get(i).intValue(), "no gap, no repeat: " + seqs);
        }
    }

    @Test
    void withoutParametersTheWholeShortHistoryComesWithoutALink() {
        String runId = finishedRun();
        Response all = api.history(runId);
        assertEquals(200, all.statusCode(), all::asString);
        assertEquals(22, all.jsonPath().getList("$").size(), all::asString);
        assertNull(all.header("Link"), "one page only");

        Response rest = api.as("client").queryParam("after", 20).get("/api/v1/runs/{id}/history", runId);
        assertEquals(List.of(21L, 22L), rest.jsonPath().getList("seq", Long.class));
        assertNull(rest.header("Link"));
        assertEquals(List.of(), api.as("client").queryParam("after", 22).get("/api/v1/runs/{id}/history", runId)
                .jsonPath().getList("$"), "after the last: an empty page");
    }

    @Test
    void aPageExactlyAtTheEndHasNoNextLink() {
        String runId = finishedRun();
        Response page = api.as("client").queryParam("after", 11).queryParam("limit", 11).get("/api/v1/runs/{id}/history", runId);
        assertEquals(11, page.jsonPath().getList("$").size());
        assertNull(page.header("Link"));
    }

    @Test
    void badPagingParametersAre400() {
        String runId = finishedRun();
        for (String[] bad : new String[][]{{"limit", "0"}, {"limit", "1001"}, {"limit", "-1"}, {"limit", "ten"},
                {"after", "-1"}, {"after", "x"}, {"after", "99999999999999999999999"}, {"limit", "1e3"}}) {
            var answer = problem(api.as("client").queryParam(bad[0], bad[1]).get("/api/v1/runs/{id}/history", runId), 400);
            assertEquals(bad[0], answer.getString("field"), answer.prettify());
        }
        api.as("client").queryParam("limit", 1000).get("/api/v1/runs/{id}/history", runId).then().statusCode(200);
    }
}
