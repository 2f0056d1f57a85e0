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
     * One task's result for {@link #report}: {@code error} null means it completed with {@code output} (may be null),
     * else it failed ({@code retryable} lets the node's retry policy try again).
     */
    public record Result(String taskId, String leaseToken, JsonNode output, String error, boolean retryable) {

        public static Result completed(String taskId, String leaseToken, JsonNode output) {
            return new Result(taskId, leaseToken, output, null, false);
        }

        public static Result failed(String taskId, String leaseToken, String error, boolean retryable) {
            return new Result(taskId, leaseToken, null, error == null || error.isBlank() ? "failed" : error, retryable);
        }
    }

    /** What became of one result of a {@link #report}: {@code recorded}, or {@code lease-lost} / {@code not-found}. */
    public record Outcome(String taskId, String status, String detail) {

        public boolean recorded() {
            return "recorded".equals(status);
        }
    }

    /** A {@link #report}'s answer: each result's outcome in order, and the tasks leased to this worker with it. */
    public record Reported(List<Outcome> outcomes, List<ClaimedTask> next) {
    }

    /**
     * Reports several results in one request ({@code POST /tasks/report}, at most 100): the server applies them in one
     * group commit, each fenced on its own, so a lost lease is that result's {@link Outcome}, not an exception. When
     * {@code next} names handlers this worker has free slots for, up to {@code nextMax} tasks are leased to it with the
     * answer (eager dispatch). Sending a result again is harmless (applied once).
     */
    public Reported report(List<Result> results, List<String> next, int nextMax) {
        ObjectNode body = client.mapper().createObjectNode();
        var array = body.putArray("results");
        for (Result r : results) {
            ObjectNode item = array.addObject().put("taskId", r.taskId()).put("leaseToken", r.leaseToken());
            if (r.error() != null) {
                item.put("error", r.error()).put("retryable", r.retryable());
            } else if (r.output() != null) {
                item.set("output", r.output());
            }
        }
        if (next != null && !next.isEmpty() && nextMax > 0) {
            ObjectNode wanted = body.putObject("next");
            next.forEach(wanted.putArray("handlers")::add);
            wanted.put("max", Math.min(100, nextMax));
        }
        JsonNode answer = client.exchange("POST", "/tasks/report", body, Map.of(), timeout).body();
        List<Outcome> outcomes = new ArrayList<>();
        for (JsonNode o : answer.path("results")) {
            outcomes.add(new Outcome(o.path("taskId").asText(), o.path("status").asText(), o.path("detail").asText(null)));
        }
        return new Reported(outcomes, next(answer));
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
