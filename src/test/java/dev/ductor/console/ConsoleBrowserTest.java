package dev.ductor.console;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Browser;
import dev.ductor.support.RequestLog;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console in a real browser (headless Chromium through WebDriver) against the real server and its embedded
 * PostgreSQL: sign-in by dev role, a run's DAG turning green live without polling, a signal sent from the page, two
 * editors racing on one workflow (409 keeps the typed text, re-applying saves), a client that gets no editor and whose
 * direct PUT is refused, a deep link, bulk cancel, and a failed run reset onto a fixed revision (a 409 keeps the
 * operator's choice). Screenshots go to target/console-screenshots (or
 * -Dconsole.screenshots.dir=docs/img to refresh the README's).
 */
@QuarkusTest
@Tag("api")
class ConsoleBrowserTest {

    private static final Pattern RUN_URL = Pattern.compile("/console/runs/([0-9a-f-]{36})$");

    @Inject
    DevTokenIssuer issuer;

    private String base;

    @BeforeEach
    void base() {
        Browser.assumeAvailable();
        base = RestAssured.baseURI + ":" + RestAssured.port;
    }

    private RequestSpecification as(String role) {
        return given().header("Authorization", "Bearer " + issuer.mint(role, DevTokenIssuer.DEMO_TENANT)).contentType(ContentType.JSON);
    }

    private String define(String prefix, String definition) {
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 6);
        as("admin").body(definition).put("/api/v1/workflows/{name}", name).then().statusCode(201);
        return name;
    }

    private String start(String workflow, String body) {
        return as("client").body(body).post("/api/v1/workflows/{name}/runs", workflow).then().statusCode(201).extract().path("runId");
    }

    private static String state(Browser browser, String node) {
        Object state = ((JavascriptExecutor) browser.driver).executeScript(
                "const n = document.querySelector(`[data-dag] [data-node='${arguments[0]}']`); return n ? n.dataset.state : null;", node);
        return (String) state;
    }

    @Test
    void signInStartARunAndWatchItsDagTurnGreenLiveWithoutPolling() throws Exception {
        String workflow = define("live", """
                {"nodes": [
                  {"id": "fetch", "type": "task", "handler": "sleep", "input": {"ms": 700}},
                  {"id": "resize", "type": "task", "handler": "sleep", "input": {"ms": 1500}, "dependsOn": ["fetch"]},
                  {"id": "scan", "type": "task", "handler": "sleep", "input": {"ms": 400}, "dependsOn": ["fetch"]},
                  {"id": "publish", "type": "task", "handler": "noop", "dependsOn": ["resize", "scan"]}]}""");
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("client");
            assertEquals("demo", browser.find("[data-tenant]").getText(), "the page shows the token's tenant");
            browser.find("details.panel summary").click();
            new Select(browser.find("select[data-start='workflow']")).selectByValue(workflow);
            browser.find("[data-action='start']").click();
            String runId = browser.until(d -> {
                Matcher m = RUN_URL.matcher(d.getCurrentUrl());
                return m.find() ? m.group(1) : null;
            }, "starting the run did not open its page");
            browser.find("[data-dag] [data-node='publish']");

            // Parallel branches sit side by side: same layer (x), different rows (y).
            String resize = attribute(browser, "[data-node='resize']", "transform");
            String scan = attribute(browser, "[data-node='scan']", "transform");
            assertEquals(resize.replaceAll(",.*", ""), scan.replaceAll(",.*", ""), "one layer: " + resize + " / " + scan);
            assertNotEquals(resize, scan);

            Map<String, Set<String>> seen = new HashMap<>();
            boolean shot = false;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!"SUCCEEDED".equals(state(browser, "publish")) && System.nanoTime() < deadline) {
                for (String node : List.of("fetch", "resize", "scan", "publish")) {
                    seen.computeIfAbsent(node, k -> new LinkedHashSet<>()).add(state(browser, node));
                }
                if (!shot && "RUNNING".equals(state(browser, "resize")) && "SUCCEEDED".equals(state(browser, "scan"))) {
                    browser.screenshot("console-run");
                    shot = true;
                }
                Thread.sleep(20);
            }
            assertEquals("SUCCEEDED", state(browser, "publish"), "the DAG never turned green: " + seen);
            browser.until(d -> "SUCCEEDED".equals(attribute(browser, "[data-run-status]", "data-run-status")), "the run's status badge");
            // The page showed resize RUNNING and then every node SUCCEEDED, with one GET of the run: the rest was pushed.
            assertTrue(seen.get("resize").contains("RUNNING"), "an intermediate state was shown: " + seen);
            assertEquals(1, RequestLog.count("GET", "/api/v1/runs/" + runId),
                    "the page read the run once and then only listened: no polling of GET /runs/{id}");
            assertTrue(RequestLog.count("GET", "/api/v1/runs/" + runId + "/events") >= 1, "the page opened the event stream");
            browser.until(d -> !d.findElements(By.cssSelector("[data-timeline] .bar.s-SUCCEEDED")).isEmpty(), "the timeline of attempts");
            // Waited for, not read once: the table is redrawn as pushed changes arrive, so an element found a moment
            // ago can be stale by the time its text is read (CI: StaleElementReferenceException on getText).
            browser.until(d -> d.findElement(By.cssSelector("[data-history] table")).getText().contains("publish"),
                    "the history table lists the nodes");
            if (!shot) {
                browser.screenshot("console-run");
            }
        }
    }

    @Test
    void aDeepLinkOpensTheRunAfterSignInAndASignalFromThePageCompletesIt() {
        String workflow = define("gated", """
                {"nodes": [
                  {"id": "approve", "type": "signal", "signal": "approved"},
                  {"id": "ship", "type": "task", "handler": "echo", "dependsOn": ["approve"]}]}""");
        String runId = start(workflow, "{\"input\":{\"order\":\"A-1\"}}");
        try (Browser browser = Browser.open(base)) {
            browser.go("/console/runs/" + runId);
            browser.find("[data-dev-role='client']").click(); // not signed in yet: the sign-in page, then back to the link
            browser.until(d -> d.getCurrentUrl().endsWith("/console/runs/" + runId), "back on the deep link after sign-in");
            browser.until(d -> "WAITING".equals(state(browser, "approve")), "the signal node waits");
            WebElement name = browser.find("[data-signal='name']");
            assertEquals("approved", name.getAttribute("value"), "the waiting signal's name is offered");
            browser.find("[data-signal='payload']").sendKeys("{\"by\":\"console\"}");
            browser.find("[data-action='signal']").click();
            browser.until(d -> "SUCCEEDED".equals(attribute(browser, "[data-run-status]", "data-run-status")),
                    "the signal completed the run");
            assertEquals("SUCCEEDED", state(browser, "ship"));
            assertEquals("SUCCEEDED", as("client").get("/api/v1/runs/{id}", runId).then().extract().path("status"));
        }
    }

    @Test
    void aSkippedBranchIsDrawnDashedAFanOutShowsItsProgressAndAChildRunLinksBothWays() {
        String leaf = define("leaf", """
                {"nodes": [{"id": "pack", "type": "task", "handler": "echo"}]}""");
        String workflow = define("lang", """
                {"nodes": [
                  {"id": "start", "type": "task", "handler": "noop"},
                  {"id": "big", "type": "task", "handler": "echo", "dependsOn": ["start"], "when": "input.big == true"},
                  {"id": "lines", "type": "task", "handler": "echo", "dependsOn": ["start"], "forEach": "input.lines",
                   "input": {"line": "${{ item }}", "n": "${{ index }}"}},
                  {"id": "ship", "type": "workflow", "workflow": "%s", "dependsOn": ["start"], "input": {"order": "${{ input.order }}"}},
                  {"id": "done", "type": "task", "handler": "noop", "dependsOn": ["big", "lines", "ship"], "runIf": "noneFailed"}]}"""
                .formatted(leaf));
        String runId = start(workflow, "{\"input\":{\"big\":false,\"order\":\"A-7\",\"lines\":[\"a\",\"b\",\"c\"]}}");
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("client");
            browser.go("/console/runs/" + runId);
            browser.until(d -> "SUCCEEDED".equals(attribute(browser, "[data-run-status]", "data-run-status")), "the run ends");

            // The branch not taken: SKIPPED, drawn dashed; its edge is labelled with the condition, the join's with its runIf.
            assertEquals("SKIPPED", state(browser, "big"));
            assertTrue(attribute(browser, "[data-dag] [data-node='big']", "class").contains("skipped"));
            assertEquals("5 4", attribute(browser, "[data-dag] [data-node='big'] rect", "stroke-dasharray"), "a skipped node is dashed");
            assertEquals("", attribute(browser, "[data-dag] [data-node='start'] rect", "stroke-dasharray"), "a node that ran is not");
            assertTrue(browser.find("[data-edge-label='start->big']").getText().startsWith("if input.big"));
            assertEquals("noneFailed", browser.find("[data-edge-label='lines->done']").getText());
            assertEquals("SUCCEEDED", state(browser, "done"), "the join ran: noneFailed with a branch skipped");

            // The fan-out: its progress on the node, its items and evaluated input in its panel.
            assertEquals("3/3", browser.find("[data-dag] [data-node='lines'] [data-progress]").getText());
            browser.find("[data-dag] [data-node='lines']").click();
            browser.until(d -> d.findElements(By.cssSelector("[data-node-detail] [data-items] tbody tr")).size() == 3, "three items listed");
            assertTrue(browser.find("[data-node-detail] [data-items-progress]").getText().startsWith("3/3 succeeded"));
            browser.find("[data-dag] [data-node='ship']").click();
            browser.until(d -> d.findElement(By.cssSelector("[data-node-detail] [data-node-input]")).getText().contains("A-7"),
                    "the child node's evaluated input");
            browser.screenshot("console-language");

            // The workflow node links to its child run, and the child's page back to its parent.
            String child = browser.find("[data-node-detail] [data-child-run][data-latest]").getAttribute("data-child-run");
            assertEquals(child, as("client").get("/api/v1/runs/{id}", runId).then().extract().path("children[0].runId"));
            browser.find("[data-node-detail] [data-child-run][data-latest]").click();
            browser.until(d -> d.getCurrentUrl().endsWith("/console/runs/" + child), "the child run's page");
            assertEquals(runId, browser.find("[data-parent-run]").getAttribute("data-parent-run"));
        }
    }

    @Test
    void twoEditorsOfOneWorkflowTheSecondGets409KeepsItsTextAndReappliesIt() {
        String workflow = define("edited", """
                {"nodes": [{"id": "one", "type": "task", "handler": "noop"}]}""");
        String alice = "{\"name\":\"" + workflow + "\",\"nodes\":[{\"id\":\"one\",\"type\":\"task\",\"handler\":\"noop\"},"
                + "{\"id\":\"alice\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"one\"]}]}";
        String bob = "{\n  \"name\": \"" + workflow + "\",\n  \"nodes\": [\n    {\"id\": \"one\", \"type\": \"task\", \"handler\": \"noop\"},\n"
                + "    {\"id\": \"bob-a\", \"type\": \"task\", \"handler\": \"echo\", \"dependsOn\": [\"one\"]},\n"
                + "    {\"id\": \"bob-b\", \"type\": \"task\", \"handler\": \"noop\", \"dependsOn\": [\"one\"]}\n  ]\n}";
        try (Browser a = Browser.open(base); Browser b = Browser.open(base)) {
            for (Browser browser : List.of(a, b)) {
                browser.signInAs("admin");
                browser.go("/console/workflows/" + workflow);
                browser.find("textarea[data-editor]");
                browser.find("[data-revisions] tr[data-revision='1']");
            }
            type(a, alice);
            type(b, bob);
            a.find("[data-action='save']").click();
            a.until(d -> d.findElement(By.cssSelector("[data-editor-message]")).getText().contains("Saved: version"), "A saved");

            b.find("[data-action='save']").click();
            WebElement conflict = b.find("[data-conflict]");
            assertTrue(conflict.getText().contains("NOT saved"), conflict.getText());
            assertEquals(bob, b.find("textarea[data-editor]").getAttribute("value"), "the typed text is still in the editor");
            assertTrue(b.find("[data-conflict] [data-current]").getText().contains("alice"), "the current revision is shown");
            assertTrue(b.find("[data-conflict] [data-rejected]").getText().contains("bob-a"), "beside what was sent");
            b.screenshot("console-409");

            b.find("[data-action='reapply']").click();
            b.until(d -> d.findElement(By.cssSelector("[data-editor-message]")).getText().contains("Saved: version"), "B re-applied");
            List<String> ids = as("client").get("/api/v1/workflows/{name}", workflow).then().statusCode(200).extract().path("nodes.id");
            assertEquals(List.of("one", "bob-a", "bob-b"), ids);
            assertEquals(3, (int) as("client").get("/api/v1/workflows/{name}", workflow).then().extract().path("revision"));
            b.find("[data-revisions] tr[data-revision='3']");
            b.find("[data-dag] [data-node='bob-b']");

            // An invalid definition: the 422 names the node, and the DAG preview marks it.
            type(b, "{\"nodes\": [{\"id\": \"one\", \"type\": \"task\", \"handler\": \"noop\"},"
                    + " {\"id\": \"orphan\", \"type\": \"task\", \"handler\": \"noop\", \"dependsOn\": [\"ghost\"]}]}");
            b.find("[data-action='save']").click();
            b.find("[data-dag] [data-node='orphan'][data-flagged]");
            assertTrue(b.find("[data-editor-message]").getText().contains("orphan"), "the problem names the node");
            assertEquals(3, (int) as("client").get("/api/v1/workflows/{name}", workflow).then().extract().path("revision"));
        }
    }

    @Test
    void aClientSeesNoEditorNoBulkActionsAndItsDirectPutIs403() {
        String workflow = define("guarded", "{\"nodes\": [{\"id\": \"one\", \"type\": \"task\", \"handler\": \"noop\"}]}");
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("client");
            browser.go("/console/workflows/" + workflow);
            browser.find("[data-read-only]");
            assertFalse(browser.has("textarea[data-editor]"), "no admin editor for a client");
            Object status = ((JavascriptExecutor) browser.driver).executeAsyncScript("""
                    const done = arguments[arguments.length - 1];
                    fetch('/api/v1/workflows/' + arguments[0], {method: 'PUT', headers: {
                        'Authorization': 'Bearer ' + sessionStorage.getItem('ductor.token'),
                        'Content-Type': 'application/json', 'If-Match': '"0"'},
                      body: JSON.stringify({nodes: [{id: 'x', type: 'task', handler: 'noop'}]})})
                      .then(r => r.json().then(p => done(r.status + ' ' + p.status)));""", workflow);
            assertEquals("403 403", status, "the server refuses the client's edit whatever the page shows");
            browser.go("/console/runs");
            browser.find("[data-runs], [data-empty]");
            assertFalse(browser.has("[data-action='bulk-cancel']"), "no bulk cancel for a client");
            assertEquals(1, (int) as("client").get("/api/v1/workflows/{name}", workflow).then().extract().path("revision"));
        }
    }

    @Test
    void anOperatorFindsRunsByKeyFiltersByWorkflowAndCancelsASelectionInBulk() {
        String gated = define("orders", "{\"nodes\": [{\"id\": \"paid\", \"type\": \"signal\", \"signal\": \"paid\"},"
                + " {\"id\": \"ship\", \"type\": \"task\", \"handler\": \"noop\", \"dependsOn\": [\"paid\"]}]}");
        String failing = define("billing", "{\"nodes\": [{\"id\": \"charge\", \"type\": \"task\", \"handler\": \"fail\","
                + " \"input\": {\"message\": \"card declined\", \"retryable\": false}}]}");
        String quick = define("reports", "{\"nodes\": [{\"id\": \"build\", \"type\": \"task\", \"handler\": \"noop\"}]}");
        String key = "order-" + UUID.randomUUID().toString().substring(0, 4);
        List<String> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiting.add(start(gated, "{\"input\":{\"order\":\"A-" + i + "\"},\"idempotencyKey\":\"" + key + "-" + i + "\"}"));
        }
        start(failing, "{}");
        start(quick, "{\"idempotencyKey\":\"report-2026-12\"}");
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("operator");
            browser.go("/console/runs");
            browser.find("[data-run='" + waiting.get(0) + "']");
            browser.screenshot("console-runs");

            // Find by idempotency key.
            WebElement search = browser.find("[data-filter='search']");
            search.sendKeys(key + "-1");
            browser.find("[data-action='search']").click();
            browser.until(d -> d.findElements(By.cssSelector("[data-runs] tbody tr")).size() == 1
                    && !d.findElements(By.cssSelector("[data-run='" + waiting.get(1) + "']")).isEmpty(), "only the run started with that key");

            // Filter by workflow, select all, cancel.
            search.clear();
            new Select(browser.find("select[data-filter='workflow']")).selectByValue(gated);
            browser.until(d -> d.findElements(By.cssSelector("[data-runs] tbody tr")).size() == 3, "the three gated runs");
            click(browser, "[data-runs] thead input[type=checkbox]");
            click(browser, "[data-action='bulk-cancel']");
            browser.driver.switchTo().alert().accept();
            browser.until(d -> waiting.stream().allMatch(id -> "CANCELLED".equals(
                    as("client").get("/api/v1/runs/{id}", id).then().extract().path("status"))), "all three cancelled");
            browser.until(d -> d.findElements(By.cssSelector("[data-runs] [data-status='CANCELLED']")).size() == 3,
                    "the list refreshes on its own");
        }
    }

    @Test
    void theRunsPageFiltersByATagAndTheRunPageShowsTheRunsTags() {
        String orders = define("tagged", "{\"nodes\": [{\"id\": \"paid\", \"type\": \"signal\", \"signal\": \"paid\"}]}");
        String customer = "c-" + UUID.randomUUID().toString().substring(0, 6);
        String web = start(orders, "{\"tags\": {\"customer\": \"" + customer + "\", \"channel\": \"web\"}}");
        String phone = start(orders, "{\"tags\": {\"customer\": \"" + customer + "\", \"channel\": \"phone\"}}");
        String untagged = start(orders, "{}");
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("client");
            browser.go("/console/runs");
            browser.find("[data-run='" + untagged + "']");
            WebElement tag = browser.find("[data-filter='tag']");
            tag.sendKeys("customer:" + customer);
            tag.sendKeys(org.openqa.selenium.Keys.ENTER);
            browser.until(d -> d.findElements(By.cssSelector("[data-runs] tbody tr")).size() == 2
                    && !d.findElements(By.cssSelector("[data-run='" + web + "'] [data-tag='channel:web']")).isEmpty()
                    && !d.findElements(By.cssSelector("[data-run='" + phone + "'] [data-tag='customer:" + customer + "']")).isEmpty(),
                    "the two runs of that customer, with their tags");
            assertTrue(browser.driver.getCurrentUrl().contains("tag=customer"), "the filter is in the address, to share");

            browser.go("/console/runs/" + web);
            browser.until(d -> !d.findElements(By.cssSelector("[data-run-tags] [data-tag='channel:web']")).isEmpty()
                    && !d.findElements(By.cssSelector("[data-run-tags] [data-tag='customer:" + customer + "']")).isEmpty(),
                    "the run page shows its tags");
            click(browser, "[data-run-tags] [data-tag='channel:web']");
            browser.until(d -> d.findElements(By.cssSelector("[data-runs] tbody tr")).size() >= 1
                    && d.findElements(By.cssSelector("[data-runs] tbody tr:not(:has([data-tag='channel:web']))")).isEmpty()
                    && !d.findElements(By.cssSelector("[data-run='" + web + "']")).isEmpty(),
                    "a tag links to the runs carrying it");
        }
    }

    @Test
    void anOperatorResetsAFailedRunOntoTheFixedRevisionA409KeepsTheChoiceAndTheRunEndsSucceeded() {
        String broken = """
                {"nodes": [
                  {"id": "load", "type": "task", "handler": "echo"},
                  {"id": "charge", "type": "task", "handler": "fail", "dependsOn": ["load"], "input": {"message": "bug", "retryable": false}},
                  {"id": "ship", "type": "task", "handler": "echo", "dependsOn": ["charge"]}]}""";
        String workflow = define("resettable", broken);
        String runId = start(workflow, "{\"input\":{\"order\":\"R-1\"}}");
        awaitStatus(runId, "FAILED");
        String etag = as("admin").get("/api/v1/workflows/{name}", workflow).then().extract().header("ETag");
        as("admin").header("If-Match", etag).body(broken.replace("\"handler\": \"fail\"", "\"handler\": \"echo\""))
                .put("/api/v1/workflows/{name}", workflow).then().statusCode(200);
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("operator");
            browser.go("/console/runs/" + runId);
            browser.until(d -> "FAILED".equals(attribute(browser, "[data-run-status]", "data-run-status")), "the failed run's page");
            String shown = attribute(browser, "[data-version]", "data-version");
            click(browser, "[data-node-detail] [data-action='reset-from-node']"); // the failed node is the one shown
            assertEquals("charge", new Select(browser.find("select[data-reset='from']")).getFirstSelectedOption().getAttribute("value"));
            click(browser, "[data-reset='mode-failed']");
            click(browser, "[data-reset='current']");

            // Meanwhile someone resets it on its old revision: it fails again, at a newer version than the page shows.
            as("operator").header("If-Match", "\"" + shown + "\"").body("{\"failedOnly\": true}")
                    .post("/api/v1/runs/{id}/reset", runId).then().statusCode(200);
            awaitStatus(runId, "FAILED");

            click(browser, "[data-action='reset']");
            WebElement conflict = browser.find("[data-conflict]");
            assertTrue(conflict.getText().contains("NOT saved"), conflict.getText());
            assertTrue(browser.find("[data-conflict] [data-rejected]").getText().contains("current"), "what was sent is shown");
            assertTrue(browser.find("[data-reset='current']").isSelected(), "the choice is kept");
            assertTrue(browser.find("[data-reset='mode-failed']").isSelected(), "the choice is kept");
            browser.screenshot("console-reset-409");

            click(browser, "[data-action='reapply']");
            browser.until(d -> "SUCCEEDED".equals(attribute(browser, "[data-run-status]", "data-run-status")),
                    "the reset run ends SUCCEEDED on the page, followed live");
            browser.until(d -> "SUCCEEDED".equals(state(browser, "ship")), "its DAG turns green");
        }
        var run = as("client").get("/api/v1/runs/{id}", runId).then().statusCode(200).extract().jsonPath();
        assertEquals("SUCCEEDED", run.getString("status"));
        assertEquals(2, run.getInt("revision"), "onto the fixed revision");
        assertEquals(3, run.getInt("nodes.charge.attempts"), "two failed lives, then the fixed one");
    }

    @Test
    void anOperatorPreviewsAServerSideBulkResetOfTheFilteredRunsThenWatchesItsProgress() {
        String broken = "{\"nodes\": [{\"id\": \"charge\", \"type\": \"task\", \"handler\": \"fail\", \"input\": {\"retryable\": false}}]}";
        String workflow = define("bulkreset", broken);
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            runs.add(start(workflow, "{}"));
        }
        runs.forEach(run -> awaitStatus(run, "FAILED"));
        String etag = as("admin").get("/api/v1/workflows/{name}", workflow).then().extract().header("ETag");
        as("admin").header("If-Match", etag).body(broken.replace("\"fail\"", "\"echo\"")).put("/api/v1/workflows/{name}", workflow).then().statusCode(200);
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("operator");
            browser.go("/console/runs?workflow=" + workflow + "&status=FAILED");
            browser.find("[data-run='" + runs.get(0) + "']");
            click(browser, "[data-action='server-bulk-reset']");
            assertEquals("3", browser.find("[data-bulk-preview]").getAttribute("data-matched"), "the preview counts before anything is done");
            runs.forEach(run -> assertEquals("FAILED", as("client").get("/api/v1/runs/{id}", run).then().extract().path("status")));
            click(browser, "[data-bulk='current']");
            click(browser, "[data-action='server-bulk-confirm']");
            browser.until(d -> "SUCCEEDED".equals(attribute(browser, "[data-bulk-progress]", "data-bulk-progress")), "the job's progress to its end");
            assertEquals("3", attribute(browser, "[data-bulk-progress]", "data-done"));
        }
        runs.forEach(run -> awaitStatus(run, "SUCCEEDED"));
    }

    private void awaitStatus(String runId, String status) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        String now = null;
        while (System.nanoTime() < deadline) {
            now = as("client").get("/api/v1/runs/{id}", runId).then().extract().path("status");
            if (status.equals(now)) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        assertEquals(status, now, "run " + runId);
    }

    /**
     * Clicks what the selector finds, finding it again if the list redrew between the lookup and the click (the runs
     * list refreshes itself every few seconds): a stale element throws without clicking, so no click is made twice.
     */
    private static void click(Browser browser, String css) {
        browser.until(d -> {
            try {
                d.findElement(By.cssSelector(css)).click();
                return true;
            } catch (org.openqa.selenium.StaleElementReferenceException redrawn) {
                return false;
            }
        }, "a click on " + css);
    }

    /** Read through JavaScript: live pages redraw, so a WebElement found a moment ago may be gone. */
    private static String attribute(Browser browser, String css, String name) {
        return (String) ((JavascriptExecutor) browser.driver).executeScript(
                "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", css, name);
    }

    private static void type(Browser browser, String text) {
        WebElement area = browser.find("textarea[data-editor]");
        ((JavascriptExecutor) browser.driver).executeScript(
                "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));", area, text);
    }
}
