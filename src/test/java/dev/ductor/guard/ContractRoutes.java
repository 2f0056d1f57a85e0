package dev.ductor.guard;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The mutating routes of CONTRACT.md section 3 with the role each needs and whether it is a version-checked
 * update. The OpenAPI document carries neither, so this table is the reference the route walk checks the running
 * application against; a mutating route missing here fails the walk, so a new route cannot go unchecked.
 *
 * <p>Each route also describes its body for the fuzzer: which fields exist, their JSON types, which are required
 * or may be null, values that are invalid beyond their type, and which objects refuse unknown fields. The fuzzer
 * only breaks what this says, so every request it sends is definitely invalid.
 */
final class ContractRoutes {

    static final String ADMIN = "admin";
    static final String OPERATOR = "operator";
    static final String CLIENT = "client";
    static final String WORKER = "worker";
    static final List<String> ROLES = List.of(ADMIN, OPERATOR, CLIENT, WORKER);

    private ContractRoutes() {
    }

    /** Which resource a route edits under If-Match (CONTRACT §3: PUT of a workflow/pool/rule, PATCH of a run). */
    enum Versioned {
        NONE(null), WORKFLOW("/api/v1/workflows/{}"), RUN("/api/v1/runs/{}"), POOL("/api/v1/pools/{}"), RULE("/api/v1/rules/{}"),
        SCHEDULE("/api/v1/schedules/{}");

        /** The GET that reads the resource back (normalized template). */
        final String read;

        Versioned(String read) {
            this.read = read;
        }
    }

    enum BodyUse {
        /** The route reads no body: a broken body proves nothing. */
        NONE,
        /** An absent or {@code null} body is a valid request (e.g. starting a run with no input). */
        OPTIONAL,
        REQUIRED
    }

    enum Type {
        STRING, ENUM, DURATION, UUID, INT, BOOL, OBJECT, ARRAY, STRING_ARRAY,
        /** Any JSON value. */
        ANY,
        /** Any JSON value, capped in size (256 KiB for run input, signal payloads, task output and events). */
        PAYLOAD
    }

    /**
     * One field of a body. {@code path} is dotted, with {@code [i]} for array elements ({@code nodes[1].retry.backoff}).
     * {@code invalid} are raw JSON values that are wrong for this field although of the right type.
     */
    record Field(String path, Type type, boolean required, boolean nullable, List<String> invalid) {
    }

    /** {@code strictObjects}: paths of the objects that refuse unknown fields ("" is the body itself). */
    record Body(BodyUse use, List<String> strictObjects, List<Field> fields) {
        static final Body NONE = new Body(BodyUse.NONE, List.of(), List.of());
    }

    record Rule(String method, String template, Set<String> roles, Versioned versioned, Body body,
                Function<GuardWorld, String> validBody) {

        String key() {
            return method + " " + template;
        }
    }

    static Field field(String path, Type type, boolean required, boolean nullable, String... invalid) {
        return new Field(path, type, required, nullable, List.of(invalid));
    }

    static String longString(int length) {
        return "\"" + "x".repeat(length) + "\"";
    }

    // ---- the table --------------------------------------------------------------------------------------------

    private static final Body WORKFLOW_BODY = new Body(BodyUse.REQUIRED, List.of("", "nodes[0]", "nodes[1]", "nodes[1].retry"), List.of(
            field("name", Type.STRING, false, false, "\"some-other-name\"", "\"\""),
            field("nodes", Type.ARRAY, true, false, "[]", "[1]", "[null]", "[\"gate\"]", "[[]]"),
            field("nodes[0].id", Type.STRING, true, false, "\"\"", "\"has space\"", "\"" + "n".repeat(65) + "\"", "\"work\"",
                    "\"\\u00fc\"", "\"a/b\""),
            field("nodes[0].type", Type.ENUM, true, false, "\"job\"", "\"\"", "\"signal \""),
            field("nodes[0].signal", Type.STRING, true, false, "\"\"", "\"   \""),
            field("nodes[0].timeout", Type.DURATION, false, true, "\"soon\"", "\"-PT1S\"", "\"PT\"", "\"P1Y\""),
            field("nodes[1].id", Type.STRING, true, false, "\"gate\"", "\"\""),
            field("nodes[1].type", Type.ENUM, true, false, "\"tasks\""),
            field("nodes[1].handler", Type.STRING, true, false, "\"no-such-handler\"", "\"\"", "\"   \""),
            field("nodes[1].pool", Type.STRING, false, true),
            field("nodes[1].dependsOn", Type.STRING_ARRAY, false, true, "[\"nope\"]", "[\"work\"]", "[\"cool\"]"),
            field("nodes[1].retry", Type.OBJECT, false, true, "{\"maxAttempts\":0}", "{\"maxAttempts\":101}",
                    "{\"tries\":3}", "{\"backoff\":\"later\"}"),
            field("nodes[1].retry.maxAttempts", Type.INT, false, false, "0", "-1", "101", "2147483648"),
            field("nodes[1].retry.backoff", Type.DURATION, false, true, "\"1s\"", "\"-PT1S\""),
            field("nodes[1].input", Type.ANY, false, true),
            field("nodes[2].duration", Type.DURATION, true, false, "\"5s\"", "\"-PT5S\"", "\"\""),
            field("nodes[2].dependsOn", Type.STRING_ARRAY, false, true, "[\"cool\"]", "[\"\"]")));

    private static final Body START_BODY = new Body(BodyUse.OPTIONAL, List.of(""), List.of(
            field("input", Type.PAYLOAD, false, true),
            field("idempotencyKey", Type.STRING, false, true, "\"\"", "\"   \"", longString(201)),
            field("tier", Type.ENUM, false, true, "\"fast\"", "\"BULK\"", "\"\""),
            field("correlationKey", Type.STRING, false, true, "\"\"", "\"  \"", longString(201))));

    private static final Body PATCH_RUN_BODY = new Body(BodyUse.REQUIRED, List.of("", "nodes.gate"), List.of(
            field("tier", Type.ENUM, false, false, "\"fast\"", "\"Interactive\"", "\"\""),
            field("nodes", Type.OBJECT, false, false, "{\"gate\":{}}", "{\"gate\":\"skip\"}", "{\"gate\":{\"action\":\"skip\",\"x\":1}}"),
            field("nodes.gate.action", Type.ENUM, true, false, "\"restart\"", "\"SKIP\"", "\"\"")));

    private static final Body RESET_BODY = new Body(BodyUse.REQUIRED, List.of(""), List.of(
            field("fromNodes", Type.STRING_ARRAY, false, true, "[\"\"]", "[\"  \"]"),
            field("failedOnly", Type.BOOL, false, true),
            field("toRevision", Type.ENUM, false, true, "\"latest\"", "\"\""),
            field("reopenSucceeded", Type.BOOL, false, true)));

    private static final Body BULK_BODY = new Body(BodyUse.REQUIRED, List.of("", "filter"), List.of(
            field("action", Type.ENUM, true, false, "\"delete\"", "\"CANCEL\"", "\"\""),
            field("filter", Type.OBJECT, true, false, "{\"colour\":\"red\"}"),
            field("dryRun", Type.BOOL, false, true),
            field("toRevision", Type.ENUM, false, true, "\"latest\"", "\"\"")));

    private static final Body SIGNAL_BODY = new Body(BodyUse.REQUIRED, List.of(""), List.of(
            field("name", Type.STRING, true, false, "\"\"", "\"  \"", longString(201)),
            field("payload", Type.PAYLOAD, false, true),
            field("idempotencyKey", Type.STRING, true, false, "\"\"", longString(201))));

    private static final Body CLAIM_BODY = new Body(BodyUse.REQUIRED, List.of(""), List.of(
            field("handlers", Type.STRING_ARRAY, true, false, "[]", "[\"\"]", "[\"  \"]", "[" + longString(201) + "]",
                    "[\"echo\"]", "[\"http\"]"),
            field("pool", Type.STRING, false, true, "\"\"", longString(201)),
            field("workerId", Type.STRING, true, false, "\"\"", "\" \"", longString(201)),
            field("max", Type.INT, false, true, "0", "-1", "101"),
            field("waitSeconds", Type.INT, false, true, "-1", "86400")));

    private static final Field LEASE = field("leaseToken", Type.UUID, true, false, "\"\"", "\"not-a-lease\"");

    private static final Body HEARTBEAT_BODY = new Body(BodyUse.REQUIRED, List.of(""), List.of(LEASE));

    private static final Body COMPLETE_BODY = new Body(BodyUse.REQUIRED, List.of(""), List.of(LEASE,
            field("output", Type.PAYLOAD, false, true)));

    private static final Body REPORT_BODY = new Body(BodyUse.REQUIRED, List.of("", "results[0]", "next"), List.of(
            field("results", Type.ARRAY, true, false, "[]", "[1]", "[null]", "[{}]"),
            field("results[0].taskId", Type.STRING, true, false, "\"\"", "\"x1\"", longString(41)),
            field("results[0].leaseToken", Type.UUID, true, false, "\"\"", "\"not-a-lease\""),
            field("results[0].output", Type.PAYLOAD, false, true),
            field("results[0].error", Type.STRING, false, true, "\"\"", longString(4001)),
            field("results[0].retryable", Type.BOOL, false, true),
            field("next", Type.OBJECT, false, true, "{\"handlers\":[]}", "{\"handlers\":[\"noop\"]}", "{\"max\":1}"),
            field("next.handlers", Type.STRING_ARRAY, true, false, "[]", "[\"\"]", "[\"echo\"]"),
            field("next.max", Type.INT, false, true, "0", "-1", "101")));

    private static final Body FAIL_BODY = new Body(BodyUse.REQUIRED, List.of(""), List.of(LEASE,
            field("error", Type.STRING, true, false, "\"\"", "\"  \"", longString(4001)),
            field("retryable", Type.BOOL, false, true)));

    private static final Body POOL_BODY = new Body(BodyUse.REQUIRED, List.of(""), List.of(
            field("capacity", Type.INT, true, false, "-1", "100001", "-2147483649", "2147483648"),
            field("paused", Type.BOOL, false, true),
            field("name", Type.STRING, false, false, "\"some-other-pool\"", "\"\"")));

    private static final Body RULE_BODY = new Body(BodyUse.REQUIRED, List.of("", "start"), List.of(
            field("on", Type.STRING, true, false, "\"\"", "\"  \"", longString(201)),
            field("match", Type.OBJECT, false, true, "{\"\":1}", "{\"a..b\":1}"),
            field("start", Type.OBJECT, true, false, "{}", "{\"tier\":\"bulk\"}"),
            field("start.workflow", Type.STRING, true, false, "\"\"", "\"has space\"", longString(101)),
            field("start.tier", Type.ENUM, false, true, "\"fast\"", "\"\""),
            field("start.input", Type.PAYLOAD, false, true, "\"$bogus\"", "{\"a\":\"$nope\"}"),
            field("signal", Type.OBJECT, false, true, "{\"name\":\"go\"}"),
            field("enabled", Type.BOOL, false, true),
            field("name", Type.STRING, false, false, "\"some-other-rule\"", "\"\"")));

    private static final Body SCHEDULE_BODY = new Body(BodyUse.REQUIRED, List.of(""), List.of(
            field("cron", Type.STRING, true, false, "\"\"", "\"*/5 * * * *\"", "\"0 0 6 * * ? 2001\"", "\"every day\"", longString(201)),
            field("timezone", Type.STRING, true, false, "\"\"", "\"Mars/Olympus\"", "\"+25:00\""),
            field("workflow", Type.STRING, true, false, "\"\"", "\"has space\"", "\"guard-no-such-workflow\"", longString(101)),
            field("input", Type.PAYLOAD, false, true),
            field("overlap", Type.ENUM, false, true, "\"queue\"", "\"Skip\"", "\"\""),
            field("catchUp", Type.ENUM, false, true, "\"some\"", "\"ALL\"", "\"\""),
            field("paused", Type.BOOL, false, true),
            field("name", Type.STRING, false, false, "\"some-other-schedule\"", "\"\"")));

    private static final Body EVENT_BODY = new Body(BodyUse.REQUIRED, List.of(""), List.of(
            field("type", Type.STRING, true, false, "\"\"", "\"  \"", longString(201)),
            field("key", Type.STRING, false, true, "\"\"", "\"  \"", longString(201)),
            field("payload", Type.PAYLOAD, false, true),
            field("idempotencyKey", Type.STRING, true, false, "\"\"", "\"  \"", longString(201))));

    static final List<Rule> MUTATING = List.of(
            new Rule("PUT", "/api/v1/workflows/{}", Set.of(ADMIN), Versioned.WORKFLOW, WORKFLOW_BODY, GuardWorld::workflowEdit),
            new Rule("POST", "/api/v1/workflows/{}/runs", Set.of(CLIENT), Versioned.NONE, START_BODY,
                    w -> "{\"input\":{\"k\":1},\"idempotencyKey\":\"guard-key\",\"tier\":\"bulk\"}"),
            new Rule("PATCH", "/api/v1/runs/{}", Set.of(OPERATOR), Versioned.RUN, PATCH_RUN_BODY,
                    w -> "{\"tier\":\"interactive\",\"nodes\":{\"gate\":{\"action\":\"skip\"}}}"),
            new Rule("POST", "/api/v1/runs/{}/cancel", Set.of(OPERATOR), Versioned.NONE, Body.NONE, w -> null),
            // Version-checked too (428/409: RunResetApiTest), but on a finished run, which the walk's world does not keep.
            new Rule("POST", "/api/v1/runs/{}/reset", Set.of(OPERATOR), Versioned.NONE, RESET_BODY,
                    w -> "{\"fromNodes\":[\"gate\"],\"toRevision\":\"current\"}"),
            new Rule("POST", "/api/v1/bulk-actions", Set.of(OPERATOR), Versioned.NONE, BULK_BODY,
                    w -> "{\"action\":\"cancel\",\"filter\":{\"workflow\":\"" + w.workflow + "\",\"status\":\"FAILED\"},\"dryRun\":true}"),
            new Rule("POST", "/api/v1/bulk-actions/{}/cancel", Set.of(OPERATOR), Versioned.NONE, Body.NONE, w -> null),
            new Rule("POST", "/api/v1/runs/{}/dead-letters/retry", Set.of(OPERATOR), Versioned.NONE, Body.NONE, w -> null),
            new Rule("POST", "/api/v1/runs/{}/signals", Set.of(CLIENT), Versioned.NONE, SIGNAL_BODY,
                    w -> "{\"name\":\"go\",\"payload\":{\"a\":1},\"idempotencyKey\":\"guard-signal\"}"),
            new Rule("POST", "/api/v1/tasks/claim", Set.of(WORKER), Versioned.NONE, CLAIM_BODY,
                    w -> "{\"handlers\":[\"" + w.handler + "\"],\"pool\":\"guard\",\"workerId\":\"guard-worker\",\"max\":1,\"waitSeconds\":0}"),
            new Rule("POST", "/api/v1/tasks/{}/heartbeat", Set.of(WORKER), Versioned.NONE, HEARTBEAT_BODY,
                    w -> "{\"leaseToken\":\"" + w.leaseToken + "\"}"),
            new Rule("POST", "/api/v1/tasks/{}/release", Set.of(WORKER), Versioned.NONE, HEARTBEAT_BODY,
                    w -> "{\"leaseToken\":\"" + w.leaseToken + "\"}"),
            new Rule("POST", "/api/v1/tasks/{}/complete", Set.of(WORKER), Versioned.NONE, COMPLETE_BODY,
                    w -> "{\"leaseToken\":\"" + w.leaseToken + "\",\"output\":{\"ok\":true}}"),
            new Rule("POST", "/api/v1/tasks/report", Set.of(WORKER), Versioned.NONE, REPORT_BODY,
                    w -> "{\"results\":[{\"taskId\":\"" + w.taskId + "\",\"leaseToken\":\"" + w.leaseToken
                            + "\",\"output\":{\"ok\":true}}],\"next\":{\"handlers\":[\"" + w.handler + "\"],\"max\":1}}"),
            new Rule("POST", "/api/v1/tasks/{}/fail", Set.of(WORKER), Versioned.NONE, FAIL_BODY,
                    w -> "{\"leaseToken\":\"" + w.leaseToken + "\",\"error\":\"boom\",\"retryable\":true}"),
            new Rule("PUT", "/api/v1/pools/{}", Set.of(ADMIN), Versioned.POOL, POOL_BODY, w -> poolBody(7, false)),
            new Rule("PUT", "/api/v1/rules/{}", Set.of(ADMIN), Versioned.RULE, RULE_BODY, w -> ruleBody(w.workflow, "guard.edited")),
            // Version-checked too (428/409: PoolAndRuleDeleteApiTest), but the walk's edits expect the resource to read back.
            new Rule("DELETE", "/api/v1/pools/{}", Set.of(ADMIN), Versioned.NONE, Body.NONE, w -> null),
            new Rule("DELETE", "/api/v1/rules/{}", Set.of(ADMIN), Versioned.NONE, Body.NONE, w -> null),
            new Rule("PUT", "/api/v1/schedules/{}", Set.of(ADMIN), Versioned.SCHEDULE, SCHEDULE_BODY,
                    w -> scheduleBody(w.workflow, "0 0 4 1 1 ?", true)),
            new Rule("POST", "/api/v1/events", Set.of(CLIENT), Versioned.NONE, EVENT_BODY,
                    w -> "{\"type\":\"guard.nothing-listens\",\"key\":\"k1\",\"payload\":{\"a\":1},\"idempotencyKey\":\"guard-event\"}"));

    static String poolBody(int capacity, boolean paused) {
        return "{\"capacity\":" + capacity + ",\"paused\":" + paused + "}";
    }

    /** A schedule of {@code workflow}; the guard's fire at most once a year, and are paused, so they start no runs. */
    static String scheduleBody(String workflow, String cron, boolean paused) {
        return "{\"cron\":\"" + cron + "\",\"timezone\":\"Europe/Amsterdam\",\"workflow\":\"" + workflow
                + "\",\"input\":{\"k\":1},\"overlap\":\"skip\",\"catchUp\":\"none\",\"paused\":" + paused + "}";
    }

    /** A rule that starts {@code workflow} when an event of type {@code on} from region eu arrives. */
    static String ruleBody(String workflow, String on) {
        return "{\"on\":\"" + on + "\",\"match\":{\"region\":\"eu\"},\"start\":{\"workflow\":\"" + workflow
                + "\",\"input\":{\"order\":\"$.id\"},\"tier\":\"bulk\"},\"enabled\":true}";
    }

    static Optional<Rule> find(OpenApiRoutes.Operation operation) {
        return find(operation.method(), OpenApiRoutes.normalize(operation.template()));
    }

    static Optional<Rule> find(String method, String normalizedTemplate) {
        return MUTATING.stream().filter(r -> r.method().equals(method) && r.template().equals(normalizedTemplate)).findFirst();
    }
}
