package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.schedule.ScheduleFirer;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code PUT/GET /api/v1/schedules}: the version check (ETag, 428, 409), the 422s, the next fire times, and fire times
 * becoming runs. The background trigger is off in tests ({@code %test.ductor.schedules.enabled=false}): each test drives
 * {@link ScheduleFirer#runOnce} itself, at the database's time or a time it chooses.
 */
@QuarkusTest
@Tag("api")
class ScheduleApiTest {

    /** A run of it waits for a signal, so it stays RUNNING (for overlap). */
    private static final String GATE = "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"go\"}]}";

    @Inject DevTokenIssuer issuer;
    @Inject ScheduleFirer firer;
    @Inject Clock clock;
    @Inject AgroalDataSource dataSource;

    private Api api;

    private Api api() {
        if (api == null) {
            api = new Api(issuer);
        }
        return api;
    }

    private String workflow() {
        String name = Api.unique("sw");
        api().createWorkflow(name, GATE);
        return name;
    }

    private static String body(String cron, String workflow, String extra) {
        return "{\"cron\": \"" + cron + "\", \"timezone\": \"Europe/Amsterdam\", \"workflow\": \"" + workflow
                + "\", \"input\": {\"report\": \"daily\"}" + extra + "}";
    }

    private Response put(String name, String body) {
        return api().as("admin").body(body).put("/api/v1/schedules/{name}", name);
    }

    private Response put(String name, String body, String ifMatch) {
        return api().as("admin").header("If-Match", ifMatch).body(body).put("/api/v1/schedules/{name}", name);
    }

    private Response get(String name) {
        return api().as("client").get("/api/v1/schedules/{name}", name);
    }

    @Test
    void aScheduleIsCreatedShownWithItsNextFireTimesAndListed() {
        String workflow = workflow();
        String name = Api.unique("nightly");
        Response created = put(name, body("0 */5 * * * ?", workflow, ", \"overlap\": \"allow\", \"catchUp\": \"last\""));

        assertEquals(201, created.statusCode(), created::asString);
        assertEquals("\"1\"", created.header("ETag"));
        assertEquals("/api/v1/schedules/" + name, java.net.URI.create(created.header("Location")).getPath());
        Response shown = get(name);
        assertEquals(200, shown.statusCode(), shown::asString);
        assertEquals("\"1\"", shown.header("ETag"));
        assertEquals("0 */5 * * * ?", shown.jsonPath().getString("cron"));
        assertEquals("Europe/Amsterdam", shown.jsonPath().getString("timezone"));
        assertEquals("allow", shown.jsonPath().getString("overlap"));
        assertEquals("last", shown.jsonPath().getString("catchUp"));
        assertEquals(false, shown.jsonPath().getBoolean("paused"));
        assertEquals("daily", shown.jsonPath().getString("input.report"));
        List<Map<String, String>> next = shown.jsonPath().getList("nextFireTimes");
        assertEquals(5, next.size());
        Instant previous = clock.instant();
        for (Map<String, String> fire : next) {
            Instant utc = Instant.parse(fire.get("utc"));
            OffsetDateTime local = OffsetDateTime.parse(fire.get("local"));
            assertEquals(utc, local.toInstant(), "the local time and UTC are the same instant");
            assertEquals(java.time.ZoneId.of("Europe/Amsterdam").getRules().getOffset(utc), local.getOffset());
            assertEquals(0, local.getMinute() % 5);
            assertEquals(0, local.getSecond());
            assertTrue(utc.isAfter(previous));
            previous = utc;
        }
        List<String> names = api().as("operator").get("/api/v1/schedules").jsonPath().getList("items.name");
        assertEquals(List.of(name), names);
    }

    @Test
    void anEditNeedsIfMatchAndAStaleOneIsRefusedWithTheCurrentSchedule() {
        String workflow = workflow();
        String name = Api.unique("s");
        assertEquals(201, put(name, body("0 0 6 * * ?", workflow, "")).statusCode());

        Response unconditional = put(name, body("0 0 7 * * ?", workflow, ""));
        assertEquals(428, unconditional.statusCode(), unconditional::asString);

        Response edited = put(name, body("0 0 7 * * ?", workflow, ""), "\"1\"");
        assertEquals(200, edited.statusCode(), edited::asString);
        assertEquals("\"2\"", edited.header("ETag"));
        assertEquals("0 0 7 * * ?", get(name).jsonPath().getString("cron"));

        Response stale = put(name, body("0 0 8 * * ?", workflow, ""), "\"1\"");
        assertEquals(409, stale.statusCode(), stale::asString);
        assertEquals(2, stale.jsonPath().getInt("currentVersion"));
        assertEquals("0 0 7 * * ?", stale.jsonPath().getString("current.cron"));
        assertEquals("0 0 8 * * ?", stale.jsonPath().getString("rejected.cron"));
        assertEquals("0 0 7 * * ?", get(name).jsonPath().getString("cron"), "the stale edit saved nothing");

        Response notThere = put(Api.unique("none"), body("0 0 8 * * ?", workflow, ""), "\"1\"");
        assertEquals(409, notThere.statusCode(), notThere::asString);
        assertEquals(404, get(Api.unique("none")).statusCode());
        assertEquals(403, api().as("operator").body(body("0 0 8 * * ?", workflow, "")).put("/api/v1/schedules/{n}", Api.unique("x"))
                .statusCode());
    }

    @Test
    void aBadCronAnUnknownTimeZoneOrAnUnknownWorkflowIs422NamingTheField() {
        String workflow = workflow();
        assertInvalid("{\"cron\": \"*/5 * * * *\", \"timezone\": \"UTC\", \"workflow\": \"" + workflow + "\"}", "cron");
        assertInvalid("{\"cron\": \"0 0 6 * * ?\", \"timezone\": \"Mars/Olympus\", \"workflow\": \"" + workflow + "\"}", "timezone");
        assertInvalid("{\"cron\": \"0 0 6 * * ?\", \"timezone\": \"UTC\", \"workflow\": \"" + Api.unique("nope") + "\"}", "workflow");
        assertInvalid("{\"cron\": \"0 0 6 * * ? 2001\", \"timezone\": \"UTC\", \"workflow\": \"" + workflow + "\"}", "cron");
        assertInvalid("{\"cron\": \"0 0 6 * * ?\", \"timezone\": \"UTC\", \"workflow\": \"" + workflow + "\", \"overlap\": \"queue\"}",
                "overlap");
        assertInvalid("{\"cron\": \"0 0 6 * * ?\", \"timezone\": \"UTC\", \"workflow\": \"" + workflow + "\", \"catchUp\": \"some\"}",
                "catchUp");
    }

    private void assertInvalid(String body, String field) {
        String name = Api.unique("bad");
        Response refused = put(name, body);
        assertEquals(422, refused.statusCode(), refused::asString);
        assertTrue(refused.contentType().startsWith(Api.PROBLEM_JSON), refused.contentType());
        assertEquals(List.of(field), refused.jsonPath().getList("violations.field"), refused::asString);
        assertEquals(404, get(name).statusCode(), "nothing was saved");
    }

    @Test
    void eachFireTimeStartsOneRunKeyedByTheScheduleAndTheFireTime() {
        String workflow = workflow();
        String name = Api.unique("every");
        assertEquals(201, put(name, body("* * * * * ?", workflow, ", \"overlap\": \"allow\", \"catchUp\": \"all\"")).statusCode());
        Instant base = clock.instant();

        firer.runOnce(base.plusSeconds(3));
        firer.runOnce(base.plusSeconds(3)); // again at the same time: nothing more
        List<JsonNode> runs = runs(workflow);

        Set<String> keys = new HashSet<>();
        for (JsonNode run : runs) {
            keys.add(run.path("idempotencyKey").asText());
            assertEquals("daily", run.path("input").path("report").asText(), run.toString());
        }
        Instant first = base.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        assertEquals(Set.of(ScheduleFirer.idempotencyKey(name, first), ScheduleFirer.idempotencyKey(name, first.plusSeconds(1)),
                ScheduleFirer.idempotencyKey(name, first.plusSeconds(2))), keys);
        assertEquals("schedule:" + name + ":" + first, ScheduleFirer.idempotencyKey(name, first));
        JsonNode last = Api.parse(get(name).asString()).path("lastFire");
        assertEquals(first.plusSeconds(2).toString(), last.path("at").asText());
        assertTrue(keys.size() == runs.size());
    }

    @Test
    void aPausedScheduleFiresNothingAndAResumeDoesNotCatchUpTheTimeItWasPaused() {
        String workflow = workflow();
        String name = Api.unique("paused");
        assertEquals(201, put(name, body("* * * * * ?", workflow, ", \"overlap\": \"allow\", \"catchUp\": \"all\", \"paused\": true"))
                .statusCode());
        assertEquals(List.of(), get(name).jsonPath().getList("nextFireTimes"));
        firer.runOnce(clock.instant().plusSeconds(5));
        assertEquals(0, runs(workflow).size());

        Api.sleep(1_200);
        Instant resumed = clock.instant();
        Response resume = put(name, body("* * * * * ?", workflow, ", \"overlap\": \"allow\", \"catchUp\": \"all\", \"paused\": false"),
                "\"1\"");
        assertEquals(200, resume.statusCode(), resume::asString);
        assertEquals(5, resume.jsonPath().getList("nextFireTimes").size());
        firer.runOnce(resumed.plusMillis(2_500));
        List<JsonNode> runs = runs(workflow);
        assertTrue(runs.size() >= 1 && runs.size() <= 3, "only fires after the resume: " + runs);
        for (JsonNode run : runs) {
            String key = run.path("idempotencyKey").asText();
            Instant fire = Instant.parse(key.substring(key.lastIndexOf(":") - 16));
            assertTrue(fire.isAfter(resumed.minusMillis(5)), key + " is before the resume at " + resumed);
        }
    }

    @Test
    void overlapSkipStartsNothingWhileThePreviousRunIsRunningAndCancelPreviousCancelsIt() {
        String skipping = workflow();
        String skip = Api.unique("skip");
        assertEquals(201, put(skip, body("* * * * * ?", skipping, ", \"overlap\": \"skip\", \"catchUp\": \"all\"")).statusCode());
        String cancelling = workflow();
        String cancel = Api.unique("cancel");
        assertEquals(201, put(cancel, body("* * * * * ?", cancelling, ", \"overlap\": \"cancelPrevious\", \"catchUp\": \"all\""))
                .statusCode());
        Instant base = clock.instant();

        ScheduleFirer.Pass pass = firer.runOnce(base.plusSeconds(3));

        assertEquals(1, runs(skipping).size(), "the first run waits for its signal; the next two fires overlap it");
        List<JsonNode> cancelled = runs(cancelling);
        assertEquals(3, cancelled.size(), () -> pass + " " + get(cancel).asString());
        String newest = Api.parse(get(cancel).asString()).path("lastFire").path("runId").asText();
        for (JsonNode run : cancelled) {
            String runId = run.path("runId").asText();
            assertEquals(runId.equals(newest) ? "RUNNING" : "CANCELLED", api().awaitStatus(runId,
                    runId.equals(newest) ? "RUNNING" : "CANCELLED"));
        }
    }

    @Test
    void twoSchedulersPassingAtOnceStartExactlyOneRunPerFireTimeAndMissNone() throws Exception {
        String workflow = workflow();
        String name = Api.unique("race");
        Response created = put(name, body("* * * * * ?", workflow, ", \"overlap\": \"allow\", \"catchUp\": \"all\""));
        assertEquals(201, created.statusCode(), created::asString);
        Instant from = clock.instant();
        Duration running = Duration.ofSeconds(4);
        ExecutorService pods = Executors.newFixedThreadPool(2);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<ScheduleFirer.Fired>>> passes = new ArrayList<>();
        for (int pod = 0; pod < 2; pod++) {
            passes.add(pods.submit(() -> {
                List<ScheduleFirer.Fired> started = new ArrayList<>();
                go.await();
                Instant until = clock.instant().plus(running);
                while (clock.instant().isBefore(until)) {
                    firer.runOnce(clock.instant()).started().stream().filter(f -> f.schedule().equals(name)).forEach(started::add);
                    Thread.sleep(37);
                }
                return started;
            }));
        }
        go.countDown();
        List<UUID> startedByPasses = new ArrayList<>();
        for (Future<List<ScheduleFirer.Fired>> pass : passes) {
            pass.get().forEach(f -> startedByPasses.add(f.runId()));
        }
        pods.shutdown();
        Instant to = clock.instant();
        assertEquals(200, put(name, body("* * * * * ?", workflow, ", \"overlap\": \"allow\", \"catchUp\": \"all\", \"paused\": true"),
                "\"1\"").statusCode());

        Map<String, Integer> runsPerKey = new TreeMap<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement select = c.prepareStatement(
                "SELECT idempotency_key, count(*) FROM eec_workflow_run WHERE tenant = ? AND workflow_name = ? GROUP BY 1")) {
            select.setString(1, api().tenant);
            select.setString(2, workflow);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    runsPerKey.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        assertTrue(runsPerKey.values().stream().allMatch(n -> n == 1), runsPerKey::toString);
        assertEquals(runsPerKey.size(), startedByPasses.size(), "no pass started a run another pass had started: " + startedByPasses);
        assertEquals(startedByPasses.size(), new HashSet<>(startedByPasses).size());
        Set<String> expected = new HashSet<>();
        for (Instant fire = from.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1); !fire.isAfter(to.minusSeconds(1));
             fire = fire.plusSeconds(1)) {
            expected.add(ScheduleFirer.idempotencyKey(name, fire));
        }
        assertTrue(runsPerKey.keySet().containsAll(expected), () -> "every fire time has its run: missing "
                + expected.stream().filter(k -> !runsPerKey.containsKey(k)).toList() + " of " + runsPerKey.keySet() + " from " + from
                + " to " + to + "; " + get(name).asString());
        assertTrue(runsPerKey.size() >= 3, runsPerKey::toString);
        assertFalse(runsPerKey.keySet().stream().anyMatch(k -> Instant.parse(k.substring(k.lastIndexOf(':') - 16)).isAfter(to)));
    }

    /** Pauses what the test left firing, so that other tests' passes do not keep starting its runs. */
    @AfterEach
    void pauseAll() {
        if (api == null) {
            return;
        }
        for (JsonNode schedule : Api.parse(api.as("client").get("/api/v1/schedules").asString()).path("items")) {
            if (!schedule.path("paused").asBoolean()) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) schedule).put("paused", true);
                put(schedule.path("name").asText(), schedule.toString(), "\"" + schedule.path("version").asLong() + "\"");
            }
        }
    }

    /** The workflow's runs, whole: the list gives summaries (no input), so each is read by its id. */
    private List<JsonNode> runs(String workflow) {
        JsonNode page = Api.parse(api().as("client").queryParam("workflow", workflow).queryParam("limit", 200).get("/api/v1/runs").asString());
        assertNotNull(page);
        List<JsonNode> runs = new ArrayList<>();
        page.path("items").forEach(summary -> runs.add(Api.parse(api().as("client")
                .get("/api/v1/runs/{id}", summary.path("runId").asText()).asString())));
        return runs;
    }
}
