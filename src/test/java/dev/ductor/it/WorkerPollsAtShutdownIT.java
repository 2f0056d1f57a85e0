package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM to a pod while external workers hold long polls on it: each poll is answered at once, 503 {@code pod-stopping}
 * with {@code Retry-After} (so the worker goes to another pod), a poll sent during the pre-shutdown delay too, and the
 * pod stops well within its drain, logging no ERROR and no WARN. Before, the polls ran on to their wait, held the
 * HTTP drain to its timeout ("Timed out waiting for graceful shutdown", an ERROR) and then claimed on a container or a
 * datasource already gone (ArC container not initialized, RejectedExecutionException, closed connections).
 */
@Tag("it")
class WorkerPollsAtShutdownIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static ItPostgres postgres;
    private static Pods pods;

    @BeforeAll
    static void database() throws Exception {
        postgres = ItPostgres.start(false);
        pods = new Pods("polls-at-shutdown", Pods.workDir("polls-at-shutdown-it"), postgres.jdbcUrl());
    }

    @AfterAll
    static void cleanUp() {
        if (pods != null) {
            pods.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    private static CompletableFuture<HttpResponse<String>> poll(PodProcess pod, String token, String worker) {
        return HTTP.sendAsync(HttpRequest.newBuilder(URI.create(pod.url("/api/v1/tasks/claim")))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("{\"handlers\":[\"ext:idle\"],\"workerId\":\"" + worker
                        + "\",\"max\":8,\"waitSeconds\":25}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void longPollsAreAnsweredPodStoppingAtOnceAndThePodStopsWithoutAnErrorOrWarning() throws Exception {
        // The prod profile's stop settings, with a drain shorter than the polls' wait: before, the polls outlived it.
        PodProcess pod = pods.launch("pod-a", "quarkus.shutdown.delay=2s", "quarkus.shutdown.timeout=8s");
        pods.awaitReady(pod);
        String worker = pods.token("worker");
        List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            polls.add(poll(pod, worker, "w" + i));
        }
        Thread.sleep(1500); // the polls wait on the server: nothing is queued for ext:idle

        long signalled = System.nanoTime();
        pod.process().destroy(); // SIGTERM
        List<String> answers = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> poll : polls) {
            HttpResponse<String> answer = poll.get(20, TimeUnit.SECONDS);
            answers.add(answer.statusCode() + " " + answer.headers().firstValue("Retry-After").orElse("-") + " " + answer.body());
            assertEquals(503, answer.statusCode(), "a long poll held at SIGTERM: " + answer.body());
            assertTrue(answer.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
            assertTrue(answer.headers().firstValue("Retry-After").isPresent(), "Retry-After");
            JsonNode problem = ItHttp.tree(answer.body());
            assertTrue(problem.path("type").asText().endsWith("/pod-stopping"), answer.body());
        }
        double answeredAfter = Pods.seconds(System.nanoTime() - signalled);
        assertTrue(answeredAfter < 5, "the polls were answered " + answeredAfter + " s after SIGTERM, not at once: " + answers);

        // A worker polling again during the pre-shutdown delay (readiness DOWN, the API still served) is told the same.
        HttpResponse<String> late = poll(pod, worker, "late").get(20, TimeUnit.SECONDS);
        assertTrue(late.statusCode() == 503, "a poll during the delay: " + late.statusCode() + " " + late.body());

        assertTrue(pod.process().waitFor(30, TimeUnit.SECONDS), "the pod stopped" + pods.logTails(40));
        double stoppedAfter = Pods.seconds(System.nanoTime() - signalled);
        String log = pod.tail(400);
        List<String> loud = log.lines().filter(line -> line.contains(" ERROR ") || line.contains(" WARN ")).toList();
        assertEquals(List.of(), loud, "the pod stopped without an ERROR or a WARN:\n" + log);
        assertTrue(stoppedAfter < 2 + 8, "the pod stopped within its delay and drain, not at the drain's timeout: "
                + stoppedAfter + " s");
        System.out.printf("[polls-at-shutdown] 4 long polls answered 503 pod-stopping %.2f s after SIGTERM; pod stopped"
                + " after %.1f s, log quiet%n", answeredAfter, stoppedAfter);
    }
}
