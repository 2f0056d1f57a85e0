package dev.ductor.it;

import java.util.List;

/**
 * The mix a chaos trial starts, one workflow of each kind in turn. Every task node may be tried often: a SIGKILLed
 * pod's in-flight steps come back as failed attempts once their lease has expired (that is the contract of a lease),
 * so a node running on two killed pods in a row spends two attempts on the kills alone.
 */
enum ChaosWorkflows {

    /** Four sleeps one after the other: steps in flight on every pod most of the time. */
    CHAIN("chaos-chain", """
            {"nodes": [
              {"id": "s1", "type": "task", "handler": "sleep", "input": {"ms": 300}, "retry": %1$s},
              {"id": "s2", "type": "task", "handler": "sleep", "input": {"ms": 300}, "retry": %1$s, "dependsOn": ["s1"]},
              {"id": "s3", "type": "task", "handler": "sleep", "input": {"ms": 300}, "retry": %1$s, "dependsOn": ["s2"]},
              {"id": "s4", "type": "task", "handler": "sleep", "input": {"ms": 300}, "retry": %1$s, "dependsOn": ["s3"]}]}"""),

    /** Fan-out to five parallel steps and fan-in: results of one run racing each other into its inbox. */
    FAN("chaos-fan", """
            {"nodes": [
              {"id": "split", "type": "task", "handler": "noop", "retry": %1$s},
              {"id": "f1", "type": "task", "handler": "sleep", "input": {"ms": 200}, "retry": %1$s, "dependsOn": ["split"]},
              {"id": "f2", "type": "task", "handler": "sleep", "input": {"ms": 200}, "retry": %1$s, "dependsOn": ["split"]},
              {"id": "f3", "type": "task", "handler": "noop", "retry": %1$s, "dependsOn": ["split"]},
              {"id": "f4", "type": "task", "handler": "noop", "retry": %1$s, "dependsOn": ["split"]},
              {"id": "f5", "type": "task", "handler": "sleep", "input": {"ms": 100}, "retry": %1$s, "dependsOn": ["split"]},
              {"id": "join", "type": "task", "handler": "noop", "retry": %1$s, "dependsOn": ["f1", "f2", "f3", "f4", "f5"]}]}"""),

    /**
     * Waits for a signal the client sends over HTTP (with an idempotency key, so a retry on another pod delivers it
     * once), then a durable timer. The signal's timeout is far beyond the trial: a lost signal shows as a stuck run.
     */
    SIGNAL("chaos-signal", """
            {"nodes": [
              {"id": "prep", "type": "task", "handler": "noop", "retry": %1$s},
              {"id": "approve", "type": "signal", "signal": "approve", "timeout": "PT30M", "dependsOn": ["prep"]},
              {"id": "cool", "type": "timer", "duration": "PT2S", "dependsOn": ["approve"]},
              {"id": "ship", "type": "task", "handler": "echo", "retry": %1$s, "dependsOn": ["cool"]}]}"""),

    /**
     * An {@code http} step against {@link FlakyEndpoint}, which answers 503 to the first call for each run and 200
     * afterwards: attempt 1 fails (retryably) every time, a later attempt succeeds. The request is the definition's; its
     * URL comes from the run's input, which names the run's own.
     */
    FLAKY("chaos-flaky", """
            {"nodes": [
              {"id": "call", "type": "task", "handler": "http", "input": {"url": "${{ input.url }}", "method": "POST"},
               "retry": %1$s},
              {"id": "after", "type": "task", "handler": "noop", "retry": %1$s, "dependsOn": ["call"]}]}""");

    /** Generous, with a short backoff: kills and the database crash may each cost an attempt. */
    static final String RETRY = "{\"maxAttempts\": 10, \"backoff\": \"PT0.2S\"}";

    final String workflow;
    private final String definition;

    ChaosWorkflows(String workflow, String definition) {
        this.workflow = workflow;
        this.definition = definition;
    }

    String definition() {
        return definition.formatted(RETRY);
    }

    /** The nodes of the workflow, read from its definition. */
    List<String> nodes() {
        return ItHttp.tree(definition()).path("nodes").findValuesAsText("id");
    }

    static ChaosWorkflows of(String workflow) {
        for (ChaosWorkflows kind : values()) {
            if (kind.workflow.equals(workflow)) {
                return kind;
            }
        }
        throw new IllegalArgumentException(workflow);
    }
}
