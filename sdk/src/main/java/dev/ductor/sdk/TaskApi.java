package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code /api/v1/tasks}: the external workers' API, fenced by lease tokens. A lost or superseded lease is a
 * {@link ConflictException} (problem type {@code lease-lost}): stop and drop the attempt. Most users want
 * {@link dev.ductor.sdk.worker.DuctorWorker}, which runs this protocol.
 */
public final class TaskApi {

    /** A leased task; {@code input} may be null. */
    public record ClaimedTask(String taskId, String runId, String node, int attempt, String handler, JsonNode input,
                              String leaseToken, Instant leaseExpiresAt) {
    }

    private final DuctorClient client;
    private final Duration timeout;

    TaskApi(DuctorClient client) {
        this(client, Duration.ofSeconds(10));
    }

    private TaskApi(DuctorClient client, Duration timeout) {
        this.client = client;
        this.timeout = timeout;
    }

    /** The same API with {@code timeout} as the longest wait for a heartbeat's or a report's answer. */
    public TaskApi withTimeout(Duration timeout) {
        return new TaskApi(client, timeout);
    }

    /**
     * Claims up to {@code max} due tasks of {@code handlers}, waiting up to {@code waitSeconds} for one (long poll);
     * an empty list when none came. The request may take {@code waitSeconds} plus this API's timeout.
     */
    public List<ClaimedTask> claim(List<String> handlers, String pool, String workerId, int max, int waitSeconds) {
        ObjectNode body = client.mapper().createObjectNode();
        handlers.forEach(body.putArray("handlers")::add);
        if (pool != null) {
            body.put("pool", pool);
        }
        body.put("workerId", workerId).put("max", max).put("waitSeconds", waitSeconds);
        return tasks(client.exchange("POST", "/tasks/claim", body, Map.of(), timeout.plusSeconds(waitSeconds)).body());
    }

    private static List<ClaimedTask> tasks(JsonNode answer) {
        List<ClaimedTask> tasks = new ArrayList<>();
        if (answer != null && answer.isArray()) {
            for (JsonNode t : answer) {
                tasks.add(new ClaimedTask(t.path("taskId").asText(), t.path("runId").asText(), t.path("node").asText(),
                        t.path("attempt").asInt(), t.path("handler").asText(), t.hasNonNull("input") ? t.get("input") : null,
                        t.path("leaseToken").asText(), Instant.parse(t.path("leaseExpiresAt").asText())));
            }
        }
        return tasks;
    }

    /** Extends the lease; returns its new expiry. */
    public Instant heartbeat(String taskId, String leaseToken) {
        ObjectNode body = client.mapper().createObjectNode().put("leaseToken", leaseToken);
        JsonNode answer = client.exchange("POST", "/tasks/" + DuctorClient.segment(taskId) + "/heartbeat", body, Map.of(), timeout).body();
        return Instant.parse(answer.path("leaseExpiresAt").asText());
    }

    /** Reports success; sending the same completion again is harmless (applied once). */
    public void complete(String taskId, String leaseToken, JsonNode output) {
        complete(taskId, leaseToken, output, List.of());
    }

    /**
     * Reports success and, when {@code next} names handlers this worker has a free slot for, returns the tasks the
     * server leased to it with the answer (its run's next step, eager dispatch): run them as claimed tasks.
     */
    public List<ClaimedTask> complete(String taskId, String leaseToken, JsonNode output, List<String> next) {
        ObjectNode body = client.mapper().createObjectNode().put("leaseToken", leaseToken);
        if (output != null) {
            body.set("output", output);
        }
        askNext(body, next);
        return next(client.exchange("POST", "/tasks/" + DuctorClient.segment(taskId) + "/complete", body, Map.of(), timeout).body());
    }

    private static List<ClaimedTask> next(JsonNode answer) {
        return tasks(answer == null ? null : answer.get("next"));
    }

    private static void askNext(ObjectNode body, List<String> next) {
        if (next != null && !next.isEmpty()) {
            next.forEach(body.putObject("next").putArray("handlers")::add);
        }
    }

    /**
     * Hands the task back unfinished (a draining worker): queued again at once for any worker, on the same attempt, so
     * none is spent; the token holds nothing afterwards. A {@link ConflictException} when the lease was lost already.
     */
    public void release(String taskId, String leaseToken) {
        ObjectNode body = client.mapper().createObjectNode().put("leaseToken", leaseToken);
        client.exchange("POST", "/tasks/" + DuctorClient.segment(taskId) + "/release", body, Map.of(), timeout);
    }

    /** Reports failure; {@code retryable} lets the node's retry policy try again. */
    public void fail(String taskId, String leaseToken, String error, boolean retryable) {
        fail(taskId, leaseToken, error, retryable, List.of());
    }

    /** As {@link #fail(String, String, String, boolean)}, with {@code next} as for {@link #complete(String, String, JsonNode, List)}. */
    public List<ClaimedTask> fail(String taskId, String leaseToken, String error, boolean retryable, List<String> next) {
        ObjectNode body = client.mapper().createObjectNode().put("leaseToken", leaseToken)
                .put("error", error == null || error.isBlank() ? "failed" : error).put("retryable", retryable);
        askNext(body, next);
        return next(client.exchange("POST", "/tasks/" + DuctorClient.segment(taskId) + "/fail", body, Map.of(), timeout).body());
    }
}
