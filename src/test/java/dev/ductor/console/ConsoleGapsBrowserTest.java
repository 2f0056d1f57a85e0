package dev.ductor.console;

import dev.ductor.fleet.FleetSampler;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Browser;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;

import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console's gaps of issue 31, in a real browser against the real server: a run started from its workflow's page
 * and found again by the last digits of its id, a pool created and deleted (a 409 first, keeping the delete), the fleet
 * page's charts of the last hour, a signal's banner gone once the run finished, a bulk result that outlives the runs
 * list's refresh, and history times to the millisecond.
 */
@QuarkusTest
@Tag("api")
class ConsoleGapsBrowserTest {

    @Inject
    DevTokenIssuer issuer;

    @Inject
    FleetSampler sampler;

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

    @Test
    void aClientStartsARunFromItsWorkflowsPageOpensItAndFindsItAgainByTheLastDigitsOfItsId() {
        String workflow = define("started-here", "{\"nodes\": [{\"id\": \"say\", \"type\": \"task\", \"handler\": \"echo\"}]}");
        String key = "page-" + UUID.randomUUID().toString().substring(0, 6);
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("client");
            browser.go("/console/workflows/" + workflow);
            setValue(browser, "textarea[data-start='input']", "{\"orderId\": \"not json");
            browser.find("[data-action='start-run']").click();
            browser.until(d -> d.findElement(By.cssSelector("[data-start-result]")).getText().contains("not valid JSON"), "bad JSON refused");

            setValue(browser, "textarea[data-start='input']", "{\"orderId\": \"A-17\"}");
            browser.find("input[data-start='key']").sendKeys(key);
            browser.find("[data-action='start-run']").click();
            String runId = browser.until(d -> attribute(browser, "[data-started]", "data-started"), "the started run's link");
            assertEquals("201", attribute(browser, "[data-started]", "data-start-status"));
            browser.find("[data-action='start-run']").click(); // the same key again: the same run, nothing new
            browser.until(d -> "200".equals(attribute(browser, "[data-started]", "data-start-status")), "the repeat answers 200");
            assertEquals(runId, attribute(browser, "[data-started]", "data-started"));

            browser.find("[data-started-link]").click();
            browser.until(d -> d.getCurrentUrl().endsWith("/console/runs/" + runId), "the link opens the run");
            browser.until(d -> d.findElement(By.cssSelector("[data-input]")).getText().contains("A-17"), "the input as typed");
            browser.until(d -> !d.findElements(By.cssSelector("[data-history] tbody tr")).isEmpty(), "the history");
            String at = browser.find("[data-history] tbody tr td:nth-child(2)").getText();
            assertTrue(at.matches(".*\\d{2}:\\d{2}:\\d{2}[.,]\\d{3}.*"), "history times to the millisecond: " + at);

            browser.go("/console/workflows/" + workflow);
            browser.find("[data-workflow-runs]").click();
            browser.until(d -> d.getCurrentUrl().contains("/console/runs?workflow=" + workflow), "the runs page, filtered");
            browser.until(d -> d.findElements(By.cssSelector("[data-runs] tbody tr")).size() == 1, "only this workflow's run");
            String shown = browser.find("[data-run='" + runId + "'] [data-run-id-short]").getText();
            assertEquals(runId.substring(24), shown, "the run id's distinguishing last 12 digits");
            assertEquals(runId, attribute(browser, "[data-run='" + runId + "'] [data-copy]", "data-copy"), "the copy button holds the whole id");

            browser.go("/console/runs");
            WebElement search = browser.find("[data-filter='search']");
            search.sendKeys(runId.substring(24));
            browser.find("[data-action='search']").click();
            browser.until(d -> d.getCurrentUrl().endsWith("/console/runs/" + runId), "a unique part of the id opens the run");
        }
    }

    @Test
    void anAdminCreatesAPoolAndDeletesItAfterA409ThatDeletedNothing() {
        String pool = "console-pool-" + UUID.randomUUID().toString().substring(0, 6);
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("admin");
            browser.go("/console/pools");
            browser.find("[data-new-pool='name']").sendKeys(pool);
            setValue(browser, "[data-new-pool='capacity']", "5");
            browser.find("[data-action='create-pool']").click();
            browser.until(d -> d.getCurrentUrl().endsWith("/console/pools/" + pool), "the new pool's page");
            assertEquals(5, (int) as("client").get("/api/v1/pools/{n}", pool).then().statusCode(200).extract().path("capacity"));
            browser.find("[data-action='delete']");

            // Someone changes the pool behind the page's back: the page's delete (If-Match "1") is refused.
            as("admin").header("If-Match", "\"1\"").body("{\"capacity\": 6}").put("/api/v1/pools/{n}", pool).then().statusCode(200);
            browser.find("[data-action='delete']").click();
            browser.driver.switchTo().alert().accept();
            browser.find("[data-conflict]");
            assertTrue(browser.find("[data-conflict] [data-current]").getText().contains("6"), "the current pool is shown");
            assertTrue(browser.find("[data-conflict]").getText().contains("NOT saved"));
            as("client").get("/api/v1/pools/{n}", pool).then().statusCode(200);

            browser.find("[data-conflict] [data-action='reapply']").click();
            browser.until(d -> d.getCurrentUrl().endsWith("/console/pools"), "back on the list");
            as("client").get("/api/v1/pools/{n}", pool).then().statusCode(404);
            browser.find("[data-new-pool='name']");
            assertFalse(browser.driver.findElement(By.tagName("main")).getText().contains(pool), "the list no longer has it");
        }
    }

    @Test
    void theFleetPageChartsTheLastHourFromTheServersOwnSamples() {
        String workflow = define("charted", "{\"nodes\": [{\"id\": \"one\", \"type\": \"task\", \"handler\": \"noop\"}]}");
        for (int i = 0; i < 3; i++) {
            String runId = as("client").body("{}").post("/api/v1/workflows/{n}/runs", workflow).then().statusCode(201).extract().path("runId");
            awaitStatus(runId, "SUCCEEDED");
        }
        sampler.runOnce();
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("operator");
            browser.go("/console/fleet");
            browser.find("[data-chart='runs'] svg path[data-series='started']");
            assertTrue(max(browser, "runs", "started") >= 3, "runs started this minute are drawn");
            assertTrue(max(browser, "runs", "finished") >= 3);
            assertTrue(points(browser, "duration", "p50") >= 1, "a time to finish is drawn");
            assertTrue(points(browser, "queue", "standard") >= 1, "the sampled minute's queue depth is drawn");
            assertTrue(max(browser, "pods", "pods") >= 1, "this pod is alive");
            browser.find("[data-chart='failures'] svg path[data-series='failed']");
            assertEquals(5, browser.driver.findElements(By.cssSelector("[data-chart] svg")).size(), "five charts");
            browser.screenshot("console-fleet");
        }
    }

    @Test
    void aSignalsBannerIsGoneOnceTheRunFinishedAndABulkResultOutlivesTheListsRefresh() throws Exception {
        String workflow = define("signalled", "{\"nodes\": [{\"id\": \"go\", \"type\": \"signal\", \"signal\": \"go\"},"
                + " {\"id\": \"work\", \"type\": \"task\", \"handler\": \"sleep\", \"input\": {\"ms\": 1500}, \"dependsOn\": [\"go\"]}]}");
        String runId = as("client").body("{}").post("/api/v1/workflows/{n}/runs", workflow).then().statusCode(201).extract().path("runId");
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("client");
            browser.go("/console/runs/" + runId);
            browser.find("[data-action='signal']").click();
            browser.find("[data-signal-accepted='go']");
            browser.until(d -> "SUCCEEDED".equals(attribute(browser, "[data-run-status]", "data-run-status")), "the run finishes");
            assertFalse(browser.has("[data-signal-accepted]"), "the banner went with the run's end, not 15 s later");
        }

        String gated = define("bulk-kept", "{\"nodes\": [{\"id\": \"wait\", \"type\": \"signal\", \"signal\": \"never\"}]}");
        String waiting = as("client").body("{}").post("/api/v1/workflows/{n}/runs", gated).then().statusCode(201).extract().path("runId");
        try (Browser browser = Browser.open(base)) {
            browser.signInAs("operator");
            browser.go("/console/runs?workflow=" + gated);
            browser.until(d -> d.findElements(By.cssSelector("[data-runs] tbody tr")).size() == 1, "the one run");
            browser.until(d -> {
                try {
                    d.findElement(By.cssSelector("[data-select='" + waiting + "']")).click();
                    d.findElement(By.cssSelector("[data-action='bulk-cancel']")).click();
                    return true;
                } catch (org.openqa.selenium.StaleElementReferenceException redrawn) {
                    return false;
                }
            }, "select and cancel");
            browser.driver.switchTo().alert().accept();
            browser.until(d -> d.findElement(By.cssSelector("[data-message]")).getText().contains("Cancel: done for 1"), "the result");
            Thread.sleep(3500); // longer than the list's refresh
            assertTrue(browser.find("[data-message]").getText().contains("Cancel: done for 1"), "the refresh left the result");
        }
    }

    private void awaitStatus(String runId, String status) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        String now = null;
        while (System.nanoTime() < deadline && !status.equals(now)) {
            now = as("client").get("/api/v1/runs/{id}", runId).then().extract().path("status");
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        assertEquals(status, now, "run " + runId);
    }

    private static double max(Browser browser, String chart, String series) {
        String value = attribute(browser, "[data-chart='" + chart + "'] path[data-series='" + series + "']", "data-max");
        return value == null || value.isEmpty() ? -1 : Double.parseDouble(value);
    }

    private static int points(Browser browser, String chart, String series) {
        String value = attribute(browser, "[data-chart='" + chart + "'] path[data-series='" + series + "']", "data-points");
        return value == null ? -1 : Integer.parseInt(value);
    }

    private static String attribute(Browser browser, String css, String name) {
        return (String) ((JavascriptExecutor) browser.driver).executeScript(
                "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", css, name);
    }

    private static void setValue(Browser browser, String css, String text) {
        WebElement field = browser.find(css);
        ((JavascriptExecutor) browser.driver).executeScript(
                "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));", field, text);
    }
}
