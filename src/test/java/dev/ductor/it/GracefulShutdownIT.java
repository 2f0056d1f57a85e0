package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM to a real JVM under load: readiness goes DOWN first while it still serves (the prod profile's
 * pre-shutdown delay), then it stops within its grace period without an error, its short steps finish,
 * a step longer than the drain is handed back without spending an attempt, and every run completes on the
 * other instance.
 */
@Tag("it")
class GracefulShutdownIT {

    private static final Duration GRACE = Duration.ofSeconds(45);
    private static ItPostgres postgres;
    private static StepLedger ledger;
    private static Pods pods;

    @BeforeAll
    static void database() throws Exception {
        ledger = new StepLedger();
        postgres = ItPostgres.start(false);
        pods = new Pods("graceful", Pods.workDir("graceful-it"), postgres.jdbcUrl());
    }

    @AfterAll
    static void cleanUp() {
        if (pods != null) {
            pods.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        if (ledger != null) {
            ledger.close();
        }
    }

    private static long leasedBy(String pod, String handlerLike) throws Exception {
        return postgres.sql().single("SELECT count(*) FROM eec_queue_item WHERE kind = 'TASK' AND lease_owner = ?"
                + " AND lease_token IS NOT NULL AND payload::text LIKE ?", pod, handlerLike);
    }

    private static void await(String what, java.util.concurrent.Callable<Boolean> condition, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.call()) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(what + " did not happen within " + timeout + pods.logTails(40));
    }

    @Test
    void aPodStoppedWithSigtermUnderLoadLosesNothingAndSpendsNoAttempt() throws Exception {
        // The prod profile's stop settings (the ITs run the embedded profile, which has no pre-shutdown delay).
        PodProcess podA = pods.launch("pod-a", "ductor.worker.threads=4", "quarkus.shutdown.delay=5s",
                "quarkus.shutdown.timeout=10s");
        pods.awaitReady(podA);
        String admin = pods.token("admin");
        String client = pods.token("client");
        ItHttp.expect(201, ItHttp.put(podA, "/api/v1/workflows/long", admin,
                "{\"nodes\":[{\"id\":\"slow\",\"type\":\"task\",\"handler\":\"http\",\"input\":" + ledger.input("hold-first")
                        + "}]}"), "define long");
        // 2 s steps: on a loaded machine the 30 runs of 400 ms steps were sometimes all done before the test looked.
        ItHttp.expect(201, ItHttp.put(podA, "/api/v1/workflows/short", admin, "{\"nodes\":["
                + "{\"id\":\"a\",\"type\":\"task\",\"handler\":\"sleep\",\"input\":{\"ms\":2000}},"
                + "{\"id\":\"b\",\"type\":\"task\",\"handler\":\"sleep\",\"input\":{\"ms\":2000},\"dependsOn\":[\"a\"]},"
                + "{\"id\":\"c\",\"type\":\"task\",\"handler\":\"sleep\",\"input\":{\"ms\":2000},\"dependsOn\":[\"b\"]}]}"), "define short");

        List<String> runs = new ArrayList<>();
        JsonNode longRun = ItHttp.expect(201, ItHttp.post(podA, "/api/v1/workflows/long/runs", client, "{}"), "start long");
        runs.add(longRun.path("runId").asText());
        // The long step is held by the ledger until the test ends (a 30 s sleep had sometimes finished before the SIGTERM
        // on a loaded machine, leaving nothing to hand back); handed back, it runs again on pod-b and is answered at once.
        await("pod-a leasing the long step (longer than the 5 s delay + 10 s drain)", () -> leasedBy("pod-a", "%hold-first%") == 1,
                Duration.ofSeconds(30));
        String longTask = String.valueOf(postgres.sql().single("SELECT id FROM eec_queue_item WHERE kind = 'TASK'"
                + " AND lease_owner = 'pod-a' AND payload::text LIKE '%hold-first%'"));

        PodProcess podB = pods.launch("pod-b");
        pods.awaitReady(podB);
        for (int i = 0; i < 30; i++) {
            runs.add(ItHttp.expect(201, ItHttp.post(i % 2 == 0 ? podA : podB, "/api/v1/workflows/short/runs", client, "{}"),
                    "start short").path("runId").asText());
        }
        await("pod-a running short steps too", () -> postgres.sql().single("SELECT count(*) FROM eec_queue_item WHERE kind = 'TASK'"
                + " AND lease_owner = 'pod-a' AND lease_token IS NOT NULL AND payload::text LIKE '%2000%'"
                + " AND payload::text NOT LIKE '%hold-first%'") > 0, Duration.ofSeconds(30));

        // The short steps pod-a holds as it is told to stop: each must finish on pod-a, not be handed back.
        List<Map<String, String>> shortOnA = postgres.sql().maps("SELECT id, run_id, node_id, attempt FROM eec_queue_item"
                + " WHERE kind = 'TASK' AND lease_owner = 'pod-a' AND lease_token IS NOT NULL AND payload::text LIKE '%2000%'"
                + " AND payload::text NOT LIKE '%hold-first%'");
        long signalled = System.nanoTime();
        podA.process().destroy(); // SIGTERM

        // Readiness goes DOWN first, while the pod still serves and has not begun to drain.
        HttpResponse<String> ready = null;
        while (Pods.seconds(System.nanoTime() - signalled) < 3) {
            ready = ItHttp.send(HttpRequest.newBuilder(URI.create(podA.url("/q/health/ready"))).GET());
            if (ready.statusCode() != 200) {
                break;
            }
            Thread.sleep(50);
        }
        double downAfter = Pods.seconds(System.nanoTime() - signalled);
        assertEquals(503, ready.statusCode(), "readiness DOWN within 3 s of SIGTERM: " + ready.body());
        assertTrue(ready.body().contains("DOWN"), ready.body());
        assertEquals(200, ItHttp.send(HttpRequest.newBuilder(URI.create(podA.url("/q/health/live"))).GET()).statusCode(),
                "still live while not ready");
        ItHttp.expect(200, ItHttp.get(podA, "/api/v1/runs/" + runs.get(1), client), "the API still answers while not ready");
        assertFalse(podA.tail(400).contains("released task"), "no step handed back before readiness went DOWN");
        assertTrue(podA.process().waitFor(GRACE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS),
                "pod-a stopped within its grace period" + pods.logTails(40));
        double stoppedAfter = Pods.seconds(System.nanoTime() - signalled);
        String log = podA.tail(400);
        assertTrue(log.contains("released task"), "the long step was handed back:\n" + log);
        // At pod-a's exit, each short step it held at SIGTERM is done: its task row gone and its result committed
        // (read now, before pod-b could have re-run a handed-back one), and pod-a never handed one back.
        assertFalse(shortOnA.isEmpty(), "pod-a held no short step at SIGTERM");
        List<String> unfinished = new ArrayList<>();
        for (Map<String, String> task : shortOnA) {
            UUID run = UUID.fromString(task.get("run_id"));
            long queued = postgres.sql().single("SELECT count(*) FROM eec_queue_item WHERE id = ?", Long.parseLong(task.get("id")));
            long completed = postgres.sql().single("SELECT count(*) FROM eec_run_transition WHERE run_id = ? AND node_id = ?"
                    + " AND to_state = 'SUCCEEDED' AND cause = ?", run, task.get("node_id"), "attempt " + task.get("attempt") + " completed");
            if (queued != 0 || completed != 1 || log.contains("released task " + task.get("id") + " ")) {
                unfinished.add(task + " queued=" + queued + " completed=" + completed);
            }
        }
        assertEquals(List.of(), unfinished, "short steps pod-a held at SIGTERM but did not finish before it exited:\n" + log);
        // Nor those it claimed during the pre-shutdown delay: the long step is the only one handed back, and no task is
        // left leased to the stopped pod.
        List<String> released = new ArrayList<>();
        java.util.regex.Matcher handedBack = java.util.regex.Pattern.compile("released task (\\d+) ").matcher(log);
        while (handedBack.find()) {
            released.add(handedBack.group(1));
        }
        assertEquals(List.of(longTask), released, "the steps pod-a handed back (only the long one may be):\n" + log);
        assertEquals(0, postgres.sql().single("SELECT count(*) FROM eec_queue_item WHERE lease_owner = 'pod-a'"
                + " AND lease_token IS NOT NULL"), "tasks still leased to pod-a after it exited");
        assertFalse(log.contains(" ERROR "), "pod-a stopped without an error:\n" + log);

        await("every run finished on pod-b", () -> postgres.sql().single(
                "SELECT count(*) FROM eec_workflow_run WHERE status = 'RUNNING'") == 0, Duration.ofSeconds(120));
        assertEquals(runs.size(), postgres.sql().single("SELECT count(*) FROM eec_workflow_run WHERE status = 'SUCCEEDED'"),
                "every run succeeded" + pods.logTails(40));
        assertEquals(0, postgres.sql().single("SELECT count(*) FROM eec_run_transition WHERE cause LIKE '%lease expired%'"),
                "no step was lost to an expired lease");
        assertEquals(0, postgres.sql().single("SELECT count(*) FROM eec_run_transition WHERE from_state = 'RUNNING'"
                + " AND to_state = 'RUNNING'"), "no attempt was spent on the shutdown");
        System.out.printf("[graceful] pod-a not ready %.2f s after SIGTERM (still serving), stopped %.1f s after it,"
                + " finishing the %d short steps it held; %d runs completed on pod-b, no attempt spent%n", downAfter,
                stoppedAfter, shortOnA.size(), runs.size());
    }
}
