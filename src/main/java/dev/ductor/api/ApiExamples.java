package dev.ductor.api;

/**
 * Example bodies for the OpenAPI document ({@code /q/openapi}): realistic requests and the responses the
 * resources really return. Compile-time constants, so annotations can use them; each one is valid JSON
 * (OpenApiExamplesTest parses them).
 */
public final class ApiExamples {

    private ApiExamples() {
    }

    public static final String JSON = "application/json";
    public static final String PROBLEM = Problem.MEDIA_TYPE;

    private static final String RUN_ID = "0b6f2c1e-8d4a-4f3e-9c71-2a5e6d8f9b10";
    private static final String TASK_ID = "4711";
    private static final String LEASE = "5e2d7c9a-3b1f-4e8d-a6c4-9f0b1d2e3a47";

    // ---- workflows -------------------------------------------------------------------------------------------

    private static final String WORKFLOW_NODES = "["
            + "{\"id\":\"reserve\",\"type\":\"task\",\"handler\":\"noop\",\"retry\":{\"maxAttempts\":3,\"backoff\":\"PT1S\"}},"
            + "{\"id\":\"paid\",\"type\":\"signal\",\"signal\":\"paid\",\"timeout\":\"PT1H\",\"dependsOn\":[\"reserve\"]},"
            + "{\"id\":\"cool\",\"type\":\"timer\",\"duration\":\"PT5S\",\"dependsOn\":[\"paid\"]},"
            + "{\"id\":\"ship\",\"type\":\"task\",\"handler\":\"noop\",\"pool\":\"shipping\",\"dependsOn\":[\"cool\"]}]";

    public static final String WORKFLOW_PUT = "{\"name\":\"order\",\"nodes\":" + WORKFLOW_NODES + "}";

    public static final String WORKFLOW = "{\"name\":\"order\",\"revision\":2,\"version\":1,\"nodes\":" + WORKFLOW_NODES
            + ",\"createdAt\":\"2025-06-01T09:00:00Z\",\"updatedAt\":\"2025-06-02T14:30:00Z\"}";

    public static final String WORKFLOW_LIST = "{\"items\":[" + WORKFLOW + "]}";

    public static final String WORKFLOW_INVALID = "{\"type\":\"https://ductor.dev/problems/invalid-definition\","
            + "\"title\":\"Invalid workflow definition\",\"status\":422,"
            + "\"detail\":\"the workflow has a cycle: reserve -> paid -> reserve. Nothing was saved.\","
            + "\"instance\":\"/api/v1/workflows/order\","
            + "\"violations\":[{\"node\":\"reserve\",\"field\":\"dependsOn\",\"message\":\"cycle: reserve -> paid -> reserve\"}]}";

    // ---- runs --------------------------------------------------------------------------------------------------

    public static final String START = "{\"input\":{\"orderId\":\"A-1001\",\"amount\":42.5},"
            + "\"idempotencyKey\":\"order-A-1001\",\"tier\":\"interactive\"}";

    public static final String RUN = "{\"runId\":\"" + RUN_ID + "\",\"workflow\":\"order\",\"revision\":2,"
            + "\"status\":\"RUNNING\",\"tier\":\"interactive\",\"idempotencyKey\":\"order-A-1001\","
            + "\"nodes\":{\"reserve\":{\"state\":\"SUCCEEDED\",\"attempts\":1,\"output\":{\"reserved\":true}},"
            + "\"paid\":{\"state\":\"WAITING\",\"attempts\":0},\"cool\":{\"state\":\"PENDING\",\"attempts\":0},"
            + "\"ship\":{\"state\":\"PENDING\",\"attempts\":0}},"
            + "\"input\":{\"orderId\":\"A-1001\",\"amount\":42.5},\"version\":3,"
            + "\"createdAt\":\"2025-06-02T14:31:00Z\",\"updatedAt\":\"2025-06-02T14:31:02Z\"}";

    public static final String RUN_PAGE = "{\"items\":[" + RUN + "],\"nextCursor\":\"MjAyNS0wNi0wMlQxNDozMTowMFp8MGI2ZjJjMWU\"}";

    public static final String HISTORY = "["
            + "{\"seq\":1,\"at\":\"2025-06-02T14:31:00Z\",\"from\":\"NONE\",\"to\":\"RUNNING\",\"cause\":\"started\"},"
            + "{\"seq\":2,\"at\":\"2025-06-02T14:31:00Z\",\"node\":\"reserve\",\"from\":\"PENDING\",\"to\":\"RUNNING\",\"cause\":\"dispatched\"},"
            + "{\"seq\":3,\"at\":\"2025-06-02T14:31:02Z\",\"node\":\"reserve\",\"from\":\"RUNNING\",\"to\":\"SUCCEEDED\",\"cause\":\"task completed\"}]";

    public static final String SIGNAL = "{\"name\":\"paid\",\"payload\":{\"paymentId\":\"P-77\"},\"idempotencyKey\":\"pay-P-77\"}";

    public static final String SIGNAL_ACCEPTED = "{\"runId\":\"" + RUN_ID + "\",\"signal\":\"paid\","
            + "\"idempotencyKey\":\"pay-P-77\",\"delivered\":\"accepted\"}";

    public static final String SIGNAL_DUPLICATE = "{\"runId\":\"" + RUN_ID + "\",\"signal\":\"paid\","
            + "\"idempotencyKey\":\"pay-P-77\",\"delivered\":\"duplicate\"}";

    public static final String CANCELLING = "{\"runId\":\"" + RUN_ID + "\",\"status\":\"CANCELLING\"}";

    // ---- dead letters (poison runs) -----------------------------------------------------------------------------

    private static final String DEAD_LETTER = "{\"runId\":\"" + RUN_ID + "\",\"items\":1,\"failedDeliveries\":5,"
            + "\"lastError\":\"CorruptRunStateException: run " + RUN_ID + " node_states checksum mismatch\","
            + "\"since\":\"2025-06-02T15:02:00Z\"}";

    public static final String DEAD_LETTERS = "{\"items\":[" + DEAD_LETTER + "]}";

    public static final String DEAD_LETTERS_REQUEUED = "{\"runId\":\"" + RUN_ID + "\",\"requeued\":1}";

    public static final String DEAD_LETTERS_NONE = "{\"runId\":\"" + RUN_ID + "\",\"requeued\":0}";

    public static final String PATCH_TIER = "{\"tier\":\"bulk\"}";

    public static final String PATCH_NODES = "{\"nodes\":{\"ship\":{\"action\":\"retry\"}}}";

    public static final String RUN_PATCHED = "{\"runId\":\"" + RUN_ID + "\",\"workflow\":\"order\",\"revision\":2,"
            + "\"status\":\"RUNNING\",\"tier\":\"bulk\","
            + "\"nodes\":{\"reserve\":{\"state\":\"SUCCEEDED\",\"attempts\":1,\"output\":{\"reserved\":true}},"
            + "\"paid\":{\"state\":\"WAITING\",\"attempts\":0},\"cool\":{\"state\":\"PENDING\",\"attempts\":0},"
            + "\"ship\":{\"state\":\"PENDING\",\"attempts\":0}},"
            + "\"input\":{\"orderId\":\"A-1001\",\"amount\":42.5},\"version\":4,"
            + "\"createdAt\":\"2025-06-02T14:31:00Z\",\"updatedAt\":\"2025-06-02T14:40:00Z\"}";

    public static final String RUN_TERMINAL = "{\"type\":\"https://ductor.dev/problems/run-terminal\",\"title\":\"Conflict\","
            + "\"status\":409,\"detail\":\"Run " + RUN_ID + " is already SUCCEEDED; the signal 'paid' was not applied.\","
            + "\"instance\":\"/api/v1/runs/" + RUN_ID + "/signals\",\"runId\":\"" + RUN_ID + "\"}";

    public static final String KEY_REUSED = "{\"type\":\"https://ductor.dev/problems/idempotency-key-reused\","
            + "\"title\":\"Idempotency key already used for another request\",\"status\":422,"
            + "\"detail\":\"The idempotencyKey 'order-42' was already used for a start of workflow 'order' with a different body."
            + " Nothing was done. Send exactly the first request again to get its answer, or use a new key for a new request.\","
            + "\"instance\":\"/api/v1/workflows/order/runs\",\"idempotencyKey\":\"order-42\",\"field\":\"idempotencyKey\"}";

    // ---- pools -------------------------------------------------------------------------------------------------

    public static final String POOL_PUT = "{\"capacity\":5,\"paused\":false}";

    public static final String POOL = "{\"name\":\"shipping\",\"capacity\":5,\"paused\":false,\"version\":2,"
            + "\"createdAt\":\"2025-06-01T09:00:00Z\",\"updatedAt\":\"2025-06-02T10:15:00Z\"}";

    public static final String POOL_LIST = "{\"items\":[" + POOL + "]}";

    public static final String POOL_EVENTS = "["
            + "{\"version\":1,\"type\":\"PoolDefined\",\"payload\":{\"capacity\":3,\"paused\":false},"
            + "\"recordedBy\":\"admin@demo\",\"recordedAt\":\"2025-06-01T09:00:00Z\"},"
            + "{\"version\":2,\"type\":\"PoolCapacityChanged\",\"payload\":{\"from\":3,\"to\":5},"
            + "\"recordedBy\":\"admin@demo\",\"recordedAt\":\"2025-06-02T10:15:00Z\"}]";

    // ---- rules -------------------------------------------------------------------------------------------------

    public static final String RULE_PUT = "{\"on\":\"order.placed\",\"match\":{\"country\":\"NL\"},"
            + "\"start\":{\"workflow\":\"order\",\"input\":{\"orderId\":\"$key\",\"order\":\"$\"},\"tier\":\"standard\"}}";

    public static final String RULE = "{\"name\":\"start-order\",\"on\":\"order.placed\",\"match\":{\"country\":\"NL\"},"
            + "\"start\":{\"workflow\":\"order\",\"input\":{\"orderId\":\"$key\",\"order\":\"$\"},\"tier\":\"standard\"},"
            + "\"enabled\":true,\"version\":1,\"createdAt\":\"2025-06-01T09:00:00Z\","
            + "\"updatedAt\":\"2025-06-01T09:00:00Z\",\"updatedBy\":\"admin@demo\"}";

    public static final String RULE_LIST = "{\"items\":[" + RULE + "]}";

    public static final String RULE_INVALID = "{\"type\":\"https://ductor.dev/problems/invalid-rule\",\"title\":\"Invalid rule\","
            + "\"status\":400,\"detail\":\"start.workflow: required. Nothing was saved.\",\"instance\":\"/api/v1/rules/start-order\","
            + "\"violations\":[{\"field\":\"start.workflow\",\"message\":\"required\"}]}";

    // ---- events ------------------------------------------------------------------------------------------------

    public static final String EVENT = "{\"type\":\"order.placed\",\"key\":\"A-1001\","
            + "\"payload\":{\"country\":\"NL\",\"amount\":42.5},\"idempotencyKey\":\"evt-9f1c\"}";

    public static final String EVENT_RECEIPT = "{\"eventId\":\"7c1e9a52-6b3d-4f08-8e2a-d41f0c5b9e63\",\"type\":\"order.placed\","
            + "\"key\":\"A-1001\",\"duplicate\":false,\"receivedAt\":\"2025-06-02T14:31:00Z\","
            + "\"started\":[{\"rule\":\"start-order\",\"workflow\":\"order\",\"runId\":\"" + RUN_ID + "\"}],"
            + "\"signalled\":[],\"skipped\":[]}";

    public static final String EVENT_DUPLICATE = "{\"eventId\":\"7c1e9a52-6b3d-4f08-8e2a-d41f0c5b9e63\",\"type\":\"order.placed\","
            + "\"key\":\"A-1001\",\"duplicate\":true,\"receivedAt\":\"2025-06-02T14:31:00Z\","
            + "\"started\":[{\"rule\":\"start-order\",\"workflow\":\"order\",\"runId\":\"" + RUN_ID + "\"}],"
            + "\"signalled\":[],\"skipped\":[]}";

    // ---- tasks -------------------------------------------------------------------------------------------------

    public static final String CLAIM = "{\"handlers\":[\"charge-card\"],\"pool\":\"shipping\",\"workerId\":\"worker-1\","
            + "\"max\":10,\"waitSeconds\":20}";

    public static final String CLAIMED = "[{\"taskId\":\"" + TASK_ID + "\",\"runId\":\"" + RUN_ID + "\",\"node\":\"ship\","
            + "\"attempt\":1,\"handler\":\"charge-card\",\"input\":{\"orderId\":\"A-1001\"},\"leaseToken\":\"" + LEASE + "\","
            + "\"leaseExpiresAt\":\"2025-06-02T14:32:00Z\"}]";

    public static final String HEARTBEAT = "{\"leaseToken\":\"" + LEASE + "\"}";

    public static final String HEARTBEAT_OK = "{\"taskId\":\"" + TASK_ID + "\",\"leaseExpiresAt\":\"2025-06-02T14:33:00Z\"}";

    public static final String COMPLETE = "{\"leaseToken\":\"" + LEASE + "\",\"output\":{\"trackingNo\":\"TRK-123\"}}";

    public static final String FAIL = "{\"leaseToken\":\"" + LEASE + "\",\"error\":\"card declined\",\"retryable\":false}";

    public static final String RECORDED = "{\"taskId\":\"" + TASK_ID + "\",\"recorded\":true}";

    public static final String LEASE_LOST = "{\"type\":\"https://ductor.dev/problems/lease-lost\",\"title\":\"Conflict\","
            + "\"status\":409,\"detail\":\"Task " + TASK_ID + " is no longer leased with this token: its lease expired and it was"
            + " claimed again, an operator retried or skipped its node, or it finished. Nothing was recorded; stop and drop"
            + " this attempt.\","
            + "\"instance\":\"/api/v1/tasks/" + TASK_ID + "/complete\",\"taskId\":" + TASK_ID + "}";

    // ---- common problems ---------------------------------------------------------------------------------------

    public static final String BAD_REQUEST = "{\"type\":\"https://ductor.dev/problems/bad-request\",\"title\":\"Bad request\","
            + "\"status\":400,\"detail\":\"unknown field 'inputs' (allowed: input, idempotencyKey, tier, correlationKey)\","
            + "\"instance\":\"/api/v1/workflows/order/runs\",\"field\":\"inputs\"}";

    public static final String UNAUTHORIZED = "{\"type\":\"https://ductor.dev/problems/unauthorized\",\"title\":\"Unauthorized\","
            + "\"status\":401,\"detail\":\"a valid bearer token is required (Authorization: Bearer <jwt>)\","
            + "\"instance\":\"/api/v1/runs\"}";

    public static final String FORBIDDEN = "{\"type\":\"https://ductor.dev/problems/forbidden\",\"title\":\"Forbidden\","
            + "\"status\":403,\"detail\":\"your token's role may not do this\",\"instance\":\"/api/v1/workflows/order\"}";




    // ---- per-resource problems ---------------------------------------------------------------------------------

    public static final String NOT_FOUND_WORKFLOW = "{\"type\":\"https://ductor.dev/problems/not-found\",\"title\":\"Not found\","
            + "\"status\":404,\"detail\":\"Workflow 'order' does not exist\",\"instance\":\"/api/v1/workflows/order\"}";

    public static final String PRECONDITION_WORKFLOW = "{\"type\":\"https://ductor.dev/problems/precondition-required\","
            + "\"title\":\"If-Match required\",\"status\":428,\"detail\":\"Updating workflow 'order' needs an If-Match header"
            + " with the version you read (the ETag of your GET). Nothing was saved.\",\"instance\":\"/api/v1/workflows/order\"}";

    public static final String CONFLICT_WORKFLOW = "{\"type\":\"https://ductor.dev/problems/version-conflict\","
            + "\"title\":\"Version conflict\",\"status\":409,\"detail\":\"Workflow 'order' was changed by someone else: you sent"
            + " version 1, it is now at version 2. Your change was NOT saved; review the current state and send it again"
            + " with If-Match: \\\"2\\\".\",\"instance\":\"/api/v1/workflows/order\",\"saved\":false,\"expectedVersion\":1,"
            + "\"currentVersion\":2,\"current\":" + WORKFLOW + ",\"rejected\":" + WORKFLOW_PUT + "}";

    public static final String NOT_FOUND_RUN = "{\"type\":\"https://ductor.dev/problems/not-found\",\"title\":\"Not found\","
            + "\"status\":404,\"detail\":\"Run '" + RUN_ID + "' does not exist\",\"instance\":\"/api/v1/runs/" + RUN_ID + "\"}";

    public static final String RUN_STATE_CORRUPT = "{\"type\":\"https://ductor.dev/problems/run-state-corrupt\","
            + "\"title\":\"Run state failed verification\",\"status\":500,\"detail\":\"run " + RUN_ID
            + " does not match its state checksum (stored v2:9f2c..., computed v2:41d7...): its status, seq, output, tier or"
            + " node states were changed outside Ductor. Ductor refuses to advance or serve it; repair the row, or fail it,"
            + " by hand\",\"instance\":\"/api/v1/runs/" + RUN_ID + "\",\"runId\":\"" + RUN_ID + "\",\"integrity\":\"corrupt\"}";

    public static final String NOT_FOUND_TASK = "{\"type\":\"https://ductor.dev/problems/not-found\",\"title\":\"Not found\","
            + "\"status\":404,\"detail\":\"Task '42' does not exist\",\"instance\":\"/api/v1/tasks/42/complete\"}";

    public static final String PRECONDITION_RUN = "{\"type\":\"https://ductor.dev/problems/precondition-required\","
            + "\"title\":\"If-Match required\",\"status\":428,\"detail\":\"Updating run " + RUN_ID + " needs an If-Match header"
            + " with the version you read (the ETag of your GET). Nothing was saved.\",\"instance\":\"/api/v1/runs/" + RUN_ID + "\"}";

    public static final String CONFLICT_RUN = "{\"type\":\"https://ductor.dev/problems/version-conflict\","
            + "\"title\":\"Version conflict\",\"status\":409,\"detail\":\"Run " + RUN_ID + " was changed by someone else: you sent"
            + " version 2, it is now at version 3. Your change was NOT saved; review the current state and send it again"
            + " with If-Match: \\\"3\\\".\",\"instance\":\"/api/v1/runs/" + RUN_ID + "\",\"saved\":false,\"expectedVersion\":2,"
            + "\"currentVersion\":3,\"current\":" + RUN + ",\"rejected\":" + PATCH_TIER + "}";

    public static final String PATCH_REFUSED = "{\"type\":\"https://ductor.dev/problems/node-action-refused\","
            + "\"title\":\"Conflict\",\"status\":409,\"detail\":\"node 'ship' is PENDING; only a running task can be retried."
            + " The change was not applied, nothing of it was saved; review the current state and send it again if it still"
            + " applies.\",\"instance\":\"/api/v1/runs/" + RUN_ID + "\",\"node\":\"ship\",\"action\":\"retry\","
            + "\"refusals\":[{\"node\":\"ship\",\"action\":\"retry\",\"reason\":\"node 'ship' is PENDING; only a running task"
            + " can be retried\"}],\"saved\":false,\"current\":" + RUN + ",\"rejected\":" + PATCH_NODES + "}";

    public static final String PATCH_RUN_TERMINAL = "{\"type\":\"https://ductor.dev/problems/run-terminal\",\"title\":\"Conflict\","
            + "\"status\":409,\"detail\":\"Run " + RUN_ID + " is FAILED once the results that arrived before your change are"
            + " applied; the change was not applied, nothing of it was saved.\",\"instance\":\"/api/v1/runs/" + RUN_ID + "\","
            + "\"runId\":\"" + RUN_ID + "\",\"runStatus\":\"FAILED\",\"saved\":false,\"current\":" + RUN
            + ",\"rejected\":" + PATCH_NODES + "}";

    public static final String NOT_FOUND_POOL = "{\"type\":\"https://ductor.dev/problems/not-found\",\"title\":\"Not found\","
            + "\"status\":404,\"detail\":\"Pool 'shipping' does not exist\",\"instance\":\"/api/v1/pools/shipping\"}";

    public static final String PRECONDITION_POOL = "{\"type\":\"https://ductor.dev/problems/precondition-required\","
            + "\"title\":\"If-Match required\",\"status\":428,\"detail\":\"Updating pool 'shipping' needs an If-Match header"
            + " with the version you read (the ETag of your GET). Nothing was saved.\",\"instance\":\"/api/v1/pools/shipping\"}";

    public static final String CONFLICT_POOL = "{\"type\":\"https://ductor.dev/problems/version-conflict\","
            + "\"title\":\"Version conflict\",\"status\":409,\"detail\":\"Pool 'shipping' was changed by someone else: you sent"
            + " version 1, it is now at version 2. Your change was NOT saved; review the current state and send it again"
            + " with If-Match: \\\"2\\\".\",\"instance\":\"/api/v1/pools/shipping\",\"saved\":false,\"expectedVersion\":1,"
            + "\"currentVersion\":2,\"current\":" + POOL + ",\"rejected\":" + POOL_PUT + "}";

    public static final String NOT_FOUND_RULE = "{\"type\":\"https://ductor.dev/problems/not-found\",\"title\":\"Not found\","
            + "\"status\":404,\"detail\":\"Rule 'start-order' does not exist\",\"instance\":\"/api/v1/rules/start-order\"}";

    public static final String PRECONDITION_RULE = "{\"type\":\"https://ductor.dev/problems/precondition-required\","
            + "\"title\":\"If-Match required\",\"status\":428,\"detail\":\"Updating rule 'start-order' needs an If-Match header"
            + " with the version you read (the ETag of your GET). Nothing was saved.\",\"instance\":\"/api/v1/rules/start-order\"}";

    public static final String CONFLICT_RULE = "{\"type\":\"https://ductor.dev/problems/version-conflict\","
            + "\"title\":\"Version conflict\",\"status\":409,\"detail\":\"Rule 'start-order' was changed by someone else: you sent"
            + " version 0, it is now at version 1. Your change was NOT saved; review the current state and send it again"
            + " with If-Match: \\\"1\\\".\",\"instance\":\"/api/v1/rules/start-order\",\"saved\":false,\"expectedVersion\":0,"
            + "\"currentVersion\":1,\"current\":" + RULE + ",\"rejected\":" + RULE_PUT + "}";

    /** The data of one {@code run} event: exactly the JSON of GET /runs/{id}; the event's id is its version. */
    public static final String RUN_EVENT = RUN;

    public static final String LIVE_OFF = "{\"type\":\"https://ductor.dev/problems/live-updates-off\",\"title\":\"Live updates are off\","
            + "\"status\":503,\"detail\":\"Live run updates are turned off on this server (ductor.live.enabled=false): poll"
            + " GET /api/v1/runs/{runId} instead\",\"instance\":\"/api/v1/runs/" + RUN_ID + "/events\"}";

    public static final String REVISIONS = "{\"items\":[{\"name\":\"order\",\"revision\":2,\"nodes\":" + WORKFLOW_NODES
            + ",\"createdAt\":\"2025-06-02T14:30:00Z\"},{\"name\":\"order\",\"revision\":1,\"nodes\":" + WORKFLOW_NODES
            + ",\"createdAt\":\"2025-06-01T09:00:00Z\"}]}";

    public static final String REVISION = "{\"name\":\"order\",\"revision\":1,\"nodes\":" + WORKFLOW_NODES
            + ",\"createdAt\":\"2025-06-01T09:00:00Z\"}";

    public static final String NOT_FOUND_REVISION = "{\"type\":\"https://ductor.dev/problems/not-found\",\"title\":\"Not found\","
            + "\"status\":404,\"detail\":\"Workflow revision 'order/7' does not exist\",\"instance\":\"/api/v1/workflows/order/revisions/7\"}";

    public static final String FLEET = "{\"at\":\"2025-06-02T14:31:00Z\",\"tiers\":["
            + "{\"tier\":\"interactive\",\"depth\":0,\"lagSeconds\":0.0},"
            + "{\"tier\":\"standard\",\"depth\":12,\"lagSeconds\":0.8},"
            + "{\"tier\":\"bulk\",\"depth\":340,\"lagSeconds\":41.5}],"
            + "\"leasedTasks\":7,\"runningRuns\":58,"
            + "\"forcedFailures\":[{\"runId\":\"" + RUN_ID + "\",\"workflow\":\"order\",\"reason\":\"stuck\","
            + "\"at\":\"2025-06-02T13:02:11Z\",\"cause\":\"forced failure: stuck\"}]}";

    public static final String DEV_TOKENS = "{\"tenant\":\"demo\",\"tokens\":{\"admin\":\"eyJhbGciOiJSUzI1NiJ9.eyJncm91cHMiOlsiYWRtaW4iXX0.c2ln\","
            + "\"operator\":\"eyJhbGciOiJSUzI1NiJ9.eyJncm91cHMiOlsib3BlcmF0b3IiXX0.c2ln\"}}";

    public static final String DEV_TOKENS_OFF = "{\"type\":\"https://ductor.dev/problems/not-found\",\"title\":\"Not found\","
            + "\"status\":404,\"detail\":\"Dev tokens 'demo' does not exist\",\"instance\":\"/api/v1/dev-tokens\"}";
}
