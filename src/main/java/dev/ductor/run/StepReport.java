package dev.ductor.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.run.core.Input;

import java.util.UUID;

/**
 * What a step worker reports of one claimed task: it completed with an output, or failed. {@code leaseToken} is
 * the claim's: only a report whose token still holds the task row is applied (fencing).
 */
public record StepReport(long taskId, UUID leaseToken, UUID runId, String node, int attempt, String tenant, String tier,
                         boolean completed, JsonNode output, String error, boolean retryable) {

    public static StepReport completed(long taskId, UUID leaseToken, UUID runId, String node, int attempt, String tenant,
                                       String tier, JsonNode output) {
        return new StepReport(taskId, leaseToken, runId, node, attempt, tenant, tier, true, output, null, false);
    }

    public static StepReport failed(long taskId, UUID leaseToken, UUID runId, String node, int attempt, String tenant,
                                    String tier, String error, boolean retryable) {
        return new StepReport(taskId, leaseToken, runId, node, attempt, tenant, tier, false, null,
                error == null ? "failed" : error, retryable);
    }

    /** The report as a tick input that came with the call, not from the inbox (id 0: nothing to mark consumed). */
    public Input input() {
        return completed ? new Input.TaskCompleted(0, node, attempt, output)
                : new Input.TaskFailed(0, node, attempt, error, retryable);
    }

    /** The inbox payload of a task result, as every path that delivers one writes it. */
    public static ObjectNode payload(ObjectMapper mapper, boolean completed, JsonNode output, String error,
                                     boolean retryable, UUID leaseToken) {
        ObjectNode payload = mapper.createObjectNode();
        payload.put("completed", completed);
        if (completed) {
            payload.set("output", output);
        } else {
            payload.put("error", error == null ? "failed" : error);
            payload.put("retryable", retryable);
        }
        payload.put("leaseToken", leaseToken.toString());
        return payload;
    }

    public ObjectNode payload(ObjectMapper mapper) {
        return payload(mapper, completed, output, error, retryable, leaseToken);
    }

    /** The inbox key of a task result: one per node attempt, however often it is delivered. */
    public static String dedupKey(String node, int attempt) {
        return "result:" + node + ":" + attempt;
    }
}
