package dev.ductor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.sdk.DuctorClient;
import dev.ductor.sdk.ResetOptions;
import dev.ductor.sdk.Run;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CLI against the real server: in-process through picocli with captured output, and once through bin/ductor as
 * a process of its own.
 */
@Tag("it")
class DuctorCliIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static CliServer server;
    private static Path state;

    /** One command's exit code and what it printed. */
    record Result(int code, String out, String err) {
        JsonNode json() {
            try {
                return JSON.readTree(out);
            } catch (Exception e) {
                throw new AssertionError("not JSON: " + out, e);
            }
        }
    }

    @BeforeAll
    static void server() throws Exception {
        server = CliServer.get();
        state = Files.createTempDirectory("ductor-cli-state").resolve("seen.json");
    }

    private static Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = DuctorCli.execute(env(new PrintWriter(out, true), new PrintWriter(err, true)), args);
        return new Result(code, out.toString(), err.toString());
    }

    private static DuctorCli.Env env(PrintWriter out, PrintWriter err) {
        // The working directory holds .ductor/dev-tokens/<role>.jwt, as a checkout running the server does.
        return new DuctorCli.Env(Map.of("DUCTOR_SERVER", server.baseUri(), "DUCTOR_STATE_FILE", state.toString()),
                server.dir(), server.dir(), out, err);
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static Path file(String name, String content) throws Exception {
        Path file = server.dir().resolve(name);
        Files.writeString(file, content);
        return file;
    }

    private static String apply(String workflow, String nodes) throws Exception {
        Path def = file(workflow + ".json", "{\"name\": \"" + workflow + "\", \"nodes\": " + nodes + "}");
        Result applied = cli("workflow", "apply", "-f", def.toString());
        assertEquals(0, applied.code(), applied.err());
        return workflow;
    }

    @Test
    void runStartWaitPrintsTheFinishedRunWithItsOutputs() throws Exception {
        String workflow = apply(unique("hello"), "[{\"id\": \"a\", \"type\": \"task\", \"handler\": \"echo\"},"
                + " {\"id\": \"b\", \"type\": \"task\", \"handler\": \"sleep\", \"input\": {\"ms\": 200}, \"dependsOn\": [\"a\"]}]");
        Result table = cli("run", "start", workflow, "--input", "{\"order\": 42}", "--idempotency-key", unique("k"), "--wait");
        assertEquals(0, table.code(), table.err());
        assertTrue(table.out().contains("status SUCCEEDED"), table.out());
        assertTrue(table.out().contains("output: {"), table.out());

        Result json = cli("run", "start", workflow, "--input", "{\"order\": 43}", "--wait", "-o", "json");
        assertEquals(0, json.code(), json.err());
        JsonNode run = json.json();
        assertEquals("SUCCEEDED", run.path("status").asText());
        assertEquals(43, run.path("nodes").path("a").path("output").path("order").asInt(), run.toString());
        assertTrue(run.has("output"));
    }

    @Test
    void runStartTagsARunThatRunListFindsByItsTags() throws Exception {
        String workflow = apply(unique("tagged"), "[{\"id\": \"wait\", \"type\": \"signal\", \"signal\": \"go\"}]");
        String customer = unique("c");
        Result started = cli("run", "start", workflow, "--tag", "customer=" + customer, "--tag", "channel=web", "-o", "json");
        assertEquals(0, started.code(), started.err());
        String runId = started.json().path("runId").asText();
        assertEquals(customer, started.json().path("tags").path("customer").asText(), started.out());
        assertEquals(0, cli("run", "start", workflow, "--tag", "customer=" + customer, "--tag", "channel=phone").code());
        assertEquals(0, cli("run", "start", workflow).code());

        Result byCustomer = cli("run", "list", "--tag", "customer:" + customer);
        assertEquals(0, byCustomer.code(), byCustomer.err());
        assertEquals(2, byCustomer.out().lines().filter(l -> l.contains(workflow)).count(), byCustomer.out());
        assertTrue(byCustomer.out().contains("TAGS"), byCustomer.out());
        assertTrue(byCustomer.out().lines().anyMatch(l -> l.startsWith(runId) && l.endsWith("channel:web customer:" + customer)),
                byCustomer.out());

        JsonNode both = cli("run", "list", "--tag", "customer:" + customer, "--tag", "channel:web", "-o", "json").json();
        assertEquals(1, both.path("items").size(), both.toString());
        assertEquals(runId, both.path("items").get(0).path("runId").asText());

        Result get = cli("run", "get", runId);
        assertTrue(get.out().contains("tags channel:web customer:" + customer), get.out());

        Result badFilter = cli("run", "list", "--tag", "no-colon");
        assertEquals(1, badFilter.code(), "the server's 400: " + badFilter.err());
        assertTrue(badFilter.err().contains("400") && badFilter.err().contains("key:value"), badFilter.err());
        Result badTag = cli("run", "start", workflow, "--tag", "bad key=x");
        assertEquals(1, badTag.code(), badTag.err());
        assertTrue(badTag.err().contains("tags.bad key"), badTag.err());
        assertEquals(2, cli("run", "start", workflow, "--tag", "no-equals-sign").code(), "a usage error");
        assertEquals(3, cli("run", "list", "--workflow", workflow, "-o", "json").json().path("items").size(),
                "the refused starts started nothing");
    }

    @Test
    void runGetPrintsSkippedNodesAFanOutsProgressAndChildAndParentRuns() throws Exception {
        String leaf = apply(unique("leaf"), "[{\"id\": \"pack\", \"type\": \"task\", \"handler\": \"echo\"}]");
        String workflow = apply(unique("lang"), """
                [{"id": "start", "type": "task", "handler": "noop"},
                 {"id": "big", "type": "task", "handler": "echo", "dependsOn": ["start"], "when": "input.big == true"},
                 {"id": "lines", "type": "task", "handler": "echo", "dependsOn": ["start"], "forEach": "input.lines"},
                 {"id": "ship", "type": "workflow", "workflow": "%s", "dependsOn": ["start"]}]""".formatted(leaf));
        String runId = cli("run", "start", workflow, "--input", "{\"big\": false, \"lines\": [1, 2, 3]}", "--wait", "-o", "json")
                .json().path("runId").asText();
        Result get = cli("run", "get", runId);
        assertEquals(0, get.code(), get.err());
        String out = get.out();
        assertTrue(out.lines().anyMatch(l -> l.startsWith("big ") && l.contains("SKIPPED")), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("lines ") && l.contains("items 3/3")), out);
        String child = cli("run", "get", runId, "-o", "json").json().path("children").get(0).path("runId").asText();
        assertTrue(out.lines().anyMatch(l -> l.startsWith("ship ") && l.contains("child " + child + " SUCCEEDED")), out);
        assertTrue(out.contains("CHILD RUN") && out.lines().anyMatch(l -> l.startsWith(child) && l.contains(leaf)), out);
        assertTrue(!out.contains("parent run"), "a top-level run has none: " + out);

        Result childGet = cli("run", "get", child);
        assertTrue(childGet.out().contains("parent run " + runId), childGet.out());
    }

    @Test
    void historyFollowPrintsTransitionsAsTheyHappen() throws Exception {
        String workflow = apply(unique("waits"), "[{\"id\": \"paid\", \"type\": \"signal\", \"signal\": \"paid\"},"
                + " {\"id\": \"ship\", \"type\": \"task\", \"handler\": \"echo\", \"dependsOn\": [\"paid\"]}]");
        String runId = cli("run", "start", workflow, "-o", "json").json().path("runId").asText();

        StringBuffer followed = new StringBuffer();
        PrintWriter out = new PrintWriter(new java.io.Writer() {
            @Override
            public void write(char[] chars, int off, int len) {
                followed.append(chars, off, len);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        }, true);
        StringWriter err = new StringWriter();
        CompletableFuture<Integer> follow = CompletableFuture.supplyAsync(() ->
                DuctorCli.execute(env(out, new PrintWriter(err, true)), "run", "history", runId, "--follow"));

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!followed.toString().contains("WAITING") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(followed.toString().contains("PENDING -> WAITING"), "printed while the run waits: " + followed);
        assertTrue(!follow.isDone(), "still following the running run");
        assertTrue(!followed.toString().contains("SUCCEEDED  (all nodes done)"));

        Result signal = cli("run", "signal", runId, "paid", "--payload", "{\"amount\": 5}", "--idempotency-key", "pay-" + runId);
        assertEquals(0, signal.code(), signal.err());
        assertEquals(0, follow.get(60, TimeUnit.SECONDS), err.toString());
        String[] lines = followed.toString().strip().split("\n");
        assertTrue(lines[lines.length - 1].contains("RUNNING -> SUCCEEDED"), followed.toString());
        for (int i = 0; i < lines.length; i++) {
            assertTrue(lines[i].strip().startsWith(Integer.toString(i + 1)), "each transition once, in order: " + followed);
        }

        Result jsonLines = cli("run", "history", runId, "--follow", "-o", "json");
        assertEquals(0, jsonLines.code());
        for (String line : jsonLines.out().strip().split("\n")) {
            assertTrue(JSON.readTree(line).has("seq"), line);
        }
        assertEquals(lines.length, cli("run", "history", runId, "-o", "json").json().size());

        Result firstPage = cli("run", "history", runId, "--limit", "2");
        assertEquals(0, firstPage.code(), firstPage.err());
        assertTrue(firstPage.out().strip().endsWith("more: --after 2"), firstPage.out());
        JsonNode rest = cli("run", "history", runId, "--after", "2", "-o", "json").json();
        assertEquals(lines.length - 2, rest.size());
        assertEquals(3, rest.get(0).path("seq").asInt(), rest.toString());
    }

    @Test
    void applyingOverAVersionSomeoneElseChangedExitsThreeAndChangesNothing() throws Exception {
        String workflow = apply(unique("edited"), "[{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]");
        DuctorClient otherAdmin = DuctorClient.builder().baseUri(server.baseUri()).tokenFile(server.tokenFile("admin")).build();
        otherAdmin.putWorkflow(workflow, JSON.readTree("{\"nodes\": [{\"id\": \"theirs\", \"type\": \"task\", \"handler\": \"echo\"}]}"), 0L);

        Path mine = file(workflow + ".json", "{\"name\": \"" + workflow + "\", \"nodes\": [{\"id\": \"mine\", \"type\": \"task\", \"handler\": \"noop\"}]}");
        Result stale = cli("workflow", "apply", "-f", mine.toString());
        assertEquals(3, stale.code(), stale.out() + stale.err());
        assertTrue(stale.err().contains("current version: 1"), stale.err());
        assertTrue(stale.err().contains("rejected (not saved)") && stale.err().contains("\"mine\""), stale.err());
        JsonNode now = otherAdmin.getWorkflow(workflow).body();
        assertEquals(1, now.path("version").asInt());
        assertEquals("theirs", now.path("nodes").get(0).path("id").asText(), "nothing changed");

        Result json = cli("workflow", "apply", "-f", mine.toString(), "-o", "json");
        assertEquals(3, json.code());
        assertEquals(1, json.json().path("currentVersion").asInt());

        // Having looked (get remembers the version), the same apply goes through.
        assertEquals(0, cli("workflow", "get", workflow).code());
        Result applied = cli("workflow", "apply", "-f", mine.toString());
        assertEquals(0, applied.code(), applied.err());
        assertTrue(applied.out().contains("version 2"), applied.out());
    }

    @Test
    void operatorsCommandsCancelRetryAndSkip() throws Exception {
        String workflow = apply(unique("ops"), "[{\"id\": \"stuck\", \"type\": \"task\", \"handler\": \"ext:nobody\","
                + " \"retry\": {\"maxAttempts\": 3}}, {\"id\": \"after\", \"type\": \"task\", \"handler\": \"noop\", \"dependsOn\": [\"stuck\"]}]");
        String runId = cli("run", "start", workflow, "-o", "json").json().path("runId").asText();
        assertEquals(0, cli("run", "get", runId).code());
        Result retried = cli("run", "retry", runId, "stuck", "-o", "json");
        assertEquals(0, retried.code(), retried.err());
        assertEquals(2, retried.json().path("nodes").path("stuck").path("attempts").asInt());
        Result stale = cli("run", "skip", runId, "stuck", "--if-match", "0");
        assertEquals(3, stale.code(), stale.err());
        assertEquals(0, cli("run", "skip", runId, "stuck").code());
        assertEquals("SUCCEEDED", awaitStatus(runId));

        String waiting = apply(unique("cancel"), "[{\"id\": \"paid\", \"type\": \"signal\", \"signal\": \"paid\"}]");
        String toCancel = cli("run", "start", waiting, "-o", "json").json().path("runId").asText();
        assertEquals(0, cli("run", "cancel", toCancel).code());
        assertEquals("CANCELLED", awaitStatus(toCancel));
        assertEquals(3, cli("run", "cancel", toCancel).code(), "a finished run cannot be cancelled: 409");
    }

    @Test
    void runResetUsesTheVersionSeenExitsThreeWhenStaleAndRerunsOnTheFixedRevision() throws Exception {
        String workflow = unique("reset");
        String broken = "[{\"id\": \"load\", \"type\": \"task\", \"handler\": \"echo\"}, {\"id\": \"charge\", \"type\": \"task\","
                + " \"handler\": \"fail\", \"dependsOn\": [\"load\"], \"input\": {\"message\": \"bug\", \"retryable\": false}}]";
        apply(workflow, broken);
        String runId = cli("run", "start", workflow, "-o", "json").json().path("runId").asText();
        assertEquals("FAILED", awaitStatus(runId));
        assertEquals(0, cli("run", "get", runId).code(), "remembers the version seen");
        assertEquals(2, cli("run", "reset", runId).code(), "--from or --failed-only is required");
        assertEquals(2, cli("run", "reset", runId, "--failed-only", "--from", "load").code(), "not both");

        // Someone else resets it meanwhile (on the old revision: it fails again), so the version seen is stale.
        DuctorClient operator = DuctorClient.builder().baseUri(server.baseUri()).tokenFile(server.tokenFile("operator")).build();
        Run other = operator.resetRun(runId, ResetOptions.failedOnly(), operator.getRun(runId).version());
        assertEquals("FAILED", awaitStatus(runId));
        Result stale = cli("run", "reset", runId, "--failed-only", "--to-current-revision");
        assertEquals(3, stale.code(), stale.out() + stale.err());
        assertTrue(stale.err().contains("current version: "), stale.err());
        assertTrue(stale.err().contains("rejected (not saved)") && stale.err().contains("toRevision"), stale.err());
        assertTrue(other.version() > 0);

        apply(workflow, broken.replace("\"fail\"", "\"echo\""));
        assertEquals(0, cli("run", "get", runId).code());
        Result reset = cli("run", "reset", runId, "--failed-only", "--to-current-revision", "-o", "json");
        assertEquals(0, reset.code(), reset.err());
        assertEquals("RUNNING", reset.json().path("status").asText());
        assertEquals(2, reset.json().path("revision").asInt());
        assertEquals("SUCCEEDED", awaitStatus(runId));

        assertEquals(0, cli("run", "get", runId).code(), "the version seen is the reset's; read the finished run again");
        Result succeeded = cli("run", "reset", runId, "--from", "load");
        assertEquals(3, succeeded.code(), "a SUCCEEDED run only with --reopen-succeeded");
        assertTrue(succeeded.err().contains("reopenSucceeded"), succeeded.err());
        Result reopened = cli("run", "reset", runId, "--from", "load", "--reopen-succeeded");
        assertEquals(0, reopened.code(), reopened.err());
        assertEquals("SUCCEEDED", awaitStatus(runId));
    }

    @Test
    void bulkResetPreviewsThenResetsEveryMatchingRun() throws Exception {
        String workflow = unique("bulk");
        String broken = "[{\"id\": \"charge\", \"type\": \"task\", \"handler\": \"fail\", \"input\": {\"retryable\": false}}]";
        apply(workflow, broken);
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            runs.add(cli("run", "start", workflow, "-o", "json").json().path("runId").asText());
        }
        for (String run : runs) {
            assertEquals("FAILED", awaitStatus(run));
        }
        apply(workflow, broken.replace("\"fail\"", "\"echo\""));
        Result preview = cli("bulk", "start", "reset", "--workflow", workflow, "--status", "FAILED", "--dry-run");
        assertEquals(0, preview.code(), preview.err());
        assertTrue(preview.out().startsWith("3 runs match"), preview.out());
        Result job = cli("bulk", "start", "reset", "--workflow", workflow, "--status", "FAILED", "--to-current-revision", "--wait", "-o", "json");
        assertEquals(0, job.code(), job.err());
        assertEquals("SUCCEEDED", job.json().path("status").asText(), job.out());
        assertEquals(3, job.json().path("done").asInt(), job.out());
        for (String run : runs) {
            assertEquals("SUCCEEDED", awaitStatus(run));
        }
        Result shown = cli("bulk", "get", job.json().path("id").asText());
        assertTrue(shown.out().contains("matched 3, done 3, skipped 0"), shown.out());
        assertEquals(3, cli("bulk", "cancel", job.json().path("id").asText()).code(), "a finished job: 409");
        assertEquals(1, cli("bulk", "start", "delete").code(), "400 from the server");
    }

    private static String awaitStatus(String runId) {
        DuctorClient client = DuctorClient.builder().baseUri(server.baseUri()).tokenFile(server.tokenFile("client")).build();
        return client.awaitRun(runId, Duration.ofSeconds(30)).status();
    }

    @Test
    void scheduleApplyListPauseAndResumeWithTheVersionLastSeen() throws Exception {
        String workflow = apply(unique("nightly"), "[{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]");
        String schedule = unique("sched");
        Path file = file(schedule + ".json", "{\"name\": \"" + schedule + "\", \"cron\": \"0 0 2 * * ?\", \"timezone\":"
                + " \"Europe/Amsterdam\", \"workflow\": \"" + workflow + "\", \"catchUp\": \"last\"}");
        Result applied = cli("schedule", "apply", "-f", file.toString());
        assertEquals(0, applied.code(), applied.err());
        assertTrue(applied.out().contains("next "), applied.out());
        Result listed = cli("schedule", "list");
        assertTrue(listed.out().contains(schedule), listed.out());

        Result paused = cli("schedule", "pause", schedule, "-o", "json");
        assertEquals(0, paused.code(), paused.err());
        assertTrue(paused.json().path("paused").asBoolean());
        assertEquals(2, paused.json().path("version").asInt());

        DuctorClient otherAdmin = DuctorClient.builder().baseUri(server.baseUri()).tokenFile(server.tokenFile("admin")).build();
        otherAdmin.putSchedule(schedule, JSON.readTree("{\"cron\": \"0 0 3 * * ?\", \"timezone\": \"UTC\", \"workflow\": \""
                + workflow + "\", \"paused\": true}"), 2L);
        Result stale = cli("schedule", "resume", schedule);
        assertEquals(3, stale.code(), "someone changed it since this CLI saw version 2: " + stale.out() + stale.err());
        assertTrue(cli("schedule", "get", schedule, "-o", "json").json().path("paused").asBoolean(), "nothing was saved");
        Result resumed = cli("schedule", "resume", schedule, "-o", "json");
        assertEquals(0, resumed.code(), resumed.err());
        assertFalse(resumed.json().path("paused").asBoolean());
        assertEquals("0 0 3 * * ?", resumed.json().path("cron").asText(), "the resume kept the other admin's change");
        assertEquals(5, resumed.json().path("nextFireTimes").size());
    }

    @Test
    void jsonOutputParsesForEveryKindOfResource() throws Exception {
        String pool = unique("pool");
        assertEquals(0, cli("pool", "set", pool, "--capacity", "2").code());
        Result changed = cli("pool", "set", pool, "--capacity", "3", "--paused", "true", "-o", "json");
        assertEquals(0, changed.code(), changed.err());
        assertEquals(3, changed.json().path("capacity").asInt());
        assertTrue(cli("pool", "list", "-o", "json").json().isArray());
        assertEquals(pool, cli("pool", "get", pool, "-o", "json").json().path("name").asText());

        String workflow = apply(unique("evented"), "[{\"id\": \"a\", \"type\": \"task\", \"handler\": \"echo\"}]");
        String rule = unique("rule");
        String type = unique("thing.happened");
        Path ruleFile = file(rule + ".json", "{\"name\": \"" + rule + "\", \"on\": \"" + type + "\", \"start\": {\"workflow\": \""
                + workflow + "\", \"input\": \"$\"}}");
        assertEquals(0, cli("rule", "apply", "-f", ruleFile.toString()).code());
        assertEquals(type, cli("rule", "get", rule, "-o", "json").json().path("on").asText());
        assertTrue(cli("rule", "list", "-o", "json").json().isArray());
        Result sent = cli("event", "send", type, "--key", "k1", "--payload", "{\"id\": 1}", "-o", "json");
        assertEquals(0, sent.code(), sent.err());
        assertEquals(1, sent.json().path("started").size());

        assertTrue(cli("workflow", "list", "-o", "json").json().isArray());
        JsonNode page = cli("run", "list", "--workflow", workflow, "--limit", "5", "-o", "json").json();
        assertEquals(1, page.path("items").size());
        assertTrue(!page.path("items").get(0).has("input"), "the list prints summaries: " + page);
        assertEquals(workflow, cli("workflow", "get", workflow, "-o", "json").json().path("name").asText());
    }

    @Test
    void usageErrorsExitTwoAndOtherFailuresOne() {
        assertEquals(2, cli().code());
        assertEquals(2, cli("run", "frobnicate").code());
        assertEquals(2, cli("run", "get").code());
        assertEquals(2, cli("run", "start", "x", "--input", "{not json").code());
        assertEquals(2, cli("workflow", "list", "-o", "yaml").code());
        assertEquals(1, cli("run", "get", UUID.randomUUID().toString()).code(), "404");
        assertEquals(1, cli("--server", "http://127.0.0.1:1", "--token", "x", "workflow", "list").code(), "unreachable");
        assertEquals(0, cli("--help").code());
    }

    /** A command run in {@code workingDir} with only the variables given (and the state file). */
    private static Result cliIn(Path workingDir, Map<String, String> vars, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Map<String, String> all = new java.util.HashMap<>(vars);
        all.put("DUCTOR_STATE_FILE", state.toString());
        int code = DuctorCli.execute(new DuctorCli.Env(all, workingDir, workingDir, new PrintWriter(out, true),
                new PrintWriter(err, true)), args);
        return new Result(code, out.toString(), err.toString());
    }

    /** A fresh directory with no dev token in it or above it, checked (the temporary directory's parents are not ours). */
    private static Path dirWithoutDevTokens() throws Exception {
        Path dir = Files.createTempDirectory("ductor-cli-no-tokens");
        for (String role : List.of("admin", "operator", "client", "worker")) {
            assertTrue(new DevTokenLookup().nearestFile(dir, role).isEmpty(), "a dev token above " + dir + " for " + role);
        }
        return dir;
    }

    @Test
    void aDevTokenInAParentOfTheWorkingDirectoryIsUsed() throws Exception {
        Path below = Files.createDirectories(server.dir().resolve("project").resolve("sub"));
        Result listed = cliIn(below, Map.of("DUCTOR_SERVER", server.baseUri()), "workflow", "list", "-o", "json");
        assertEquals(0, listed.code(), listed.err());
        assertTrue(listed.json().isArray(), listed.out());
        // The role per command still holds: a pool is set with the admin token found above.
        Result pool = cliIn(below, Map.of("DUCTOR_SERVER", server.baseUri()), "pool", "set", unique("above"), "--capacity", "1");
        assertEquals(0, pool.code(), pool.err());
    }

    @Test
    void withNoDevTokenFileTheLocalServerHandsOneOut() throws Exception {
        Path empty = dirWithoutDevTokens();
        Map<String, String> vars = Map.of("DUCTOR_SERVER", server.baseUri());
        Result listed = cliIn(empty, vars, "workflow", "list", "-o", "json");
        assertEquals(0, listed.code(), listed.err());
        Result pool = cliIn(empty, vars, "pool", "set", unique("served"), "--capacity", "2", "-o", "json");
        assertEquals(0, pool.code(), "the admin token the server handed out: " + pool.err());
        assertEquals(2, pool.json().path("capacity").asInt(), pool.out());

        Result unknownRole = cliIn(empty, vars, "--role", "auditor", "workflow", "list");
        assertEquals(2, unknownRole.code(), unknownRole.out() + unknownRole.err());
        assertTrue(unknownRole.err().contains("no dev token for role auditor"), unknownRole.err());
        assertTrue(unknownRole.err().contains("or its parents"), "says where it looked first: " + unknownRole.err());
    }

    @Test
    void aServerThatCannotBeAskedIsSaidSoAndExitsTwo() throws Exception {
        Result result = cliIn(dirWithoutDevTokens(), Map.of("DUCTOR_SERVER", "http://127.0.0.1:1"), "workflow", "list");
        assertEquals(2, result.code(), result.out() + result.err());
        assertTrue(result.err().contains("http://127.0.0.1:1/api/v1/dev-tokens could not be asked"), result.err());
    }

    @Test
    void anExplicitTokenComesBeforeEveryDevToken() throws Exception {
        // server.dir() holds the dev tokens, and the server hands them out: a bad explicit token must still be the one sent.
        Map<String, String> vars = Map.of("DUCTOR_SERVER", server.baseUri());
        Result flag = cliIn(server.dir(), vars, "--token", "not-a-jwt", "workflow", "list");
        assertEquals(1, flag.code(), flag.out() + flag.err());
        assertTrue(flag.err().contains("401"), flag.err());
        Result env = cliIn(server.dir(), Map.of("DUCTOR_SERVER", server.baseUri(), "DUCTOR_TOKEN", "not-a-jwt"), "workflow", "list");
        assertEquals(1, env.code(), env.out() + env.err());
        assertTrue(env.err().contains("401"), env.err());
        Path file = Files.writeString(Files.createTempFile("ductor-token", ".jwt"), "not-a-jwt");
        Result fromFile = cliIn(server.dir(), vars, "--token-file", file.toString(), "workflow", "list");
        assertEquals(1, fromFile.code(), fromFile.out() + fromFile.err());
        // and a good explicit token works from a directory without dev tokens
        Result good = cliIn(dirWithoutDevTokens(), Map.of("DUCTOR_SERVER", server.baseUri(),
                "DUCTOR_TOKEN", Files.readString(server.tokenFile("client")).trim()), "workflow", "list");
        assertEquals(0, good.code(), good.err());
    }

    @Test
    void theLauncherScriptRunsTheJarAsACommandOfItsOwn() throws Exception {
        String workflow = apply(unique("scripted"), "[{\"id\": \"a\", \"type\": \"task\", \"handler\": \"echo\"}]");
        Path launcher = Path.of(System.getProperty("ductor.cli.launcher", "bin/ductor")).toAbsolutePath();
        List<String> command = new ArrayList<>(List.of("bash", launcher.toString(), "run", "start", workflow,
                "--input", "{\"from\": \"script\"}", "--wait", "-o", "json"));
        ProcessBuilder builder = new ProcessBuilder(command).directory(Files.createTempDirectory("ductor-cli-cwd").toFile());
        builder.environment().put("DUCTOR_SERVER", server.baseUri());
        builder.environment().put("DUCTOR_TOKEN", Files.readString(server.tokenFile("client")).trim());
        builder.environment().put("DUCTOR_STATE_FILE", state.toString());
        Path out = Files.createTempFile("ductor-cli", ".out");
        Path err = Files.createTempFile("ductor-cli", ".err");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), Files.readString(err));
        JsonNode run = JSON.readTree(Files.readString(out));
        assertEquals("SUCCEEDED", run.path("status").asText());
        assertEquals("script", run.path("nodes").path("a").path("output").path("from").asText());

        Process usage = new ProcessBuilder("bash", launcher.toString(), "run", "get").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(usage.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, usage.exitValue());
    }
}
