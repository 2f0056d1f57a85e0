package dev.ductor.guard;

import dev.ductor.support.Api;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The resources the guard tests aim at, created through the API for a tenant of their own: a workflow (edited
 * once, so its version is 1), a run waiting for a signal (patched once), a claimed task of an external handler,
 * and a pool and a rule when those routes are served. The same again for a second tenant, whose ids are the
 * "another tenant's resource" the contract answers 404 for.
 */
final class GuardWorld {

    final Api http;
    final Set<String> served;
    final String tenant = "guard-" + shortId();
    final String foreignTenant = "guardx-" + shortId();
    /** An external handler only these tests use, so a claim can only ever see the world's own task. */
    final String handler = "ext:guard-" + shortId();

    String workflow;
    String runId;
    String taskId;
    String leaseToken;
    String pool;
    String rule;
    String schedule;
    String bulkAction;

    String foreignWorkflow;
    String foreignRunId;
    String foreignTaskId;
    String foreignLease;
    String foreignPool;
    String foreignRule;
    String foreignSchedule;
    String foreignBulkAction;

    private GuardWorld(Api http, List<OpenApiRoutes.Operation> operations) {
        this.http = http;
        this.served = operations.stream().map(OpenApiRoutes.Operation::key).collect(Collectors.toSet());
    }

    static String shortId() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    static GuardWorld create(Api http, List<OpenApiRoutes.Operation> operations) {
        GuardWorld world = new GuardWorld(http, operations);
        world.workflow = world.createWorkflow(world.tenant, "gw-" + shortId());
        world.runId = world.startWaitingRun(world.tenant, world.workflow);
        world.patchTier(world.tenant, world.runId, "bulk");
        String[] task = world.claimedTask(world.tenant);
        world.taskId = task[0];
        world.leaseToken = task[1];

        world.foreignWorkflow = world.createWorkflow(world.foreignTenant, "gwx-" + shortId());
        world.foreignRunId = world.startWaitingRun(world.foreignTenant, world.foreignWorkflow);
        String[] foreignTask = world.claimedTask(world.foreignTenant);
        world.foreignTaskId = foreignTask[0];
        world.foreignLease = foreignTask[1];

        if (world.served.contains("PUT /api/v1/pools/{}")) {
            world.pool = world.createAndEdit(world.tenant, "/api/v1/pools/", "gp-" + shortId(),
                    ContractRoutes.poolBody(3, false), ContractRoutes.poolBody(4, false));
            world.foreignPool = world.createAndEdit(world.foreignTenant, "/api/v1/pools/", "gpx-" + shortId(),
                    ContractRoutes.poolBody(3, false), ContractRoutes.poolBody(4, false));
        }
        if (world.served.contains("PUT /api/v1/rules/{}")) {
            world.rule = world.createAndEdit(world.tenant, "/api/v1/rules/", "gr-" + shortId(),
                    ContractRoutes.ruleBody(world.workflow, "guard.created"), ContractRoutes.ruleBody(world.workflow, "guard.event"));
            world.foreignRule = world.createAndEdit(world.foreignTenant, "/api/v1/rules/", "grx-" + shortId(),
                    ContractRoutes.ruleBody(world.foreignWorkflow, "guard.created"),
                    ContractRoutes.ruleBody(world.foreignWorkflow, "guard.event"));
        }
        if (world.served.contains("POST /api/v1/bulk-actions")) {
            world.bulkAction = world.bulkActionMatchingNothing(world.tenant, world.workflow);
            world.foreignBulkAction = world.bulkActionMatchingNothing(world.foreignTenant, world.foreignWorkflow);
        }
        if (world.served.contains("PUT /api/v1/schedules/{}")) {
            world.schedule = world.createAndEdit(world.tenant, "/api/v1/schedules/", "gs-" + shortId(),
                    ContractRoutes.scheduleBody(world.workflow, "0 0 3 1 1 ?", true),
                    ContractRoutes.scheduleBody(world.workflow, "0 0 4 1 1 ?", true));
            world.foreignSchedule = world.createAndEdit(world.foreignTenant, "/api/v1/schedules/", "gsx-" + shortId(),
                    ContractRoutes.scheduleBody(world.foreignWorkflow, "0 0 3 1 1 ?", true),
                    ContractRoutes.scheduleBody(world.foreignWorkflow, "0 0 4 1 1 ?", true));
        }
        return world;
    }

    // ---- fixtures -----------------------------------------------------------------------------------------------

    /** A signal gate before a task of the world's external handler: a run of it waits, and nothing ever ticks it. */
    String gateDefinition(String extra) {
        return "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"go\"" + extra + "},"
                + "{\"id\":\"work\",\"type\":\"task\",\"handler\":\"" + handler + "\",\"dependsOn\":[\"gate\"]}]}";
    }

    /** The workflow body the fuzzer breaks: every node type and every optional field present. */
    String workflowEdit() {
        return "{\"name\":\"" + workflow + "\",\"nodes\":["
                + "{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"go\",\"timeout\":\"PT1H\"},"
                + "{\"id\":\"work\",\"type\":\"task\",\"handler\":\"noop\",\"pool\":\"guard\",\"dependsOn\":[\"gate\"],"
                + "\"retry\":{\"maxAttempts\":3,\"backoff\":\"PT1S\"},\"input\":{\"k\":1}},"
                + "{\"id\":\"cool\",\"type\":\"timer\",\"duration\":\"PT5S\",\"dependsOn\":[\"work\"]}]}";
    }

    String createWorkflow(String tenant, String name) {
        return createAndEdit(tenant, "/api/v1/workflows/", name, gateDefinition(""), gateDefinition(",\"timeout\":\"PT2H\""));
    }

    /** Creates (201) and edits once (200, with If-Match), so the resource is at a version above its first. */
    String createAndEdit(String tenant, String collection, String name, String create, String edit) {
        String path = collection + name;
        expect(201, http.send("PUT", path, http.jsonHeaders(ContractRoutes.ADMIN, tenant), create), "PUT " + path + " " + create);
        Map<String, String> headers = http.jsonHeaders(ContractRoutes.ADMIN, tenant);
        headers.put("If-Match", etag(tenant, path));
        expect(200, http.send("PUT", path, headers, edit), "PUT " + path + " (If-Match) " + edit);
        return name;
    }

    String startWaitingRun(String tenant, String workflow) {
        String path = "/api/v1/workflows/" + workflow + "/runs";
        Api.Reply reply = expect(201, http.send("POST", path, http.jsonHeaders(ContractRoutes.CLIENT, tenant), "{}"), "POST " + path);
        return reply.json().get("runId").asText();
    }

    void patchTier(String tenant, String runId, String tier) {
        String path = "/api/v1/runs/" + runId;
        Map<String, String> headers = http.jsonHeaders(ContractRoutes.OPERATOR, tenant);
        headers.put("If-Match", etag(tenant, path));
        expect(200, http.send("PATCH", path, headers, "{\"tier\":\"" + tier + "\"}"), "PATCH " + path);
    }

    /** Starts a run whose first node is a task of the world's handler, claims it, and returns {taskId, leaseToken}. */
    String[] claimedTask(String tenant) {
        String name = createWorkflowOnce(tenant, "gt-" + shortId(),
                "{\"nodes\":[{\"id\":\"t\",\"type\":\"task\",\"handler\":\"" + handler + "\"}]}");
        startWaitingRun(tenant, name);
        Api.Reply claim = expect(200, http.send("POST", "/api/v1/tasks/claim", http.jsonHeaders(ContractRoutes.WORKER, tenant),
                "{\"handlers\":[\"" + handler + "\"],\"workerId\":\"guard-fixture\",\"max\":1}"), "POST /api/v1/tasks/claim");
        JsonNode tasks = claim.json();
        if (tasks == null || tasks.size() != 1) {
            throw new AssertionError("the fixture claim should hand out exactly the one task just queued: " + claim.excerpt());
        }
        return new String[] {tasks.get(0).get("taskId").asText(), tasks.get(0).get("leaseToken").asText()};
    }

    String createWorkflowOnce(String tenant, String name, String definition) {
        expect(201, http.send("PUT", "/api/v1/workflows/" + name, http.jsonHeaders(ContractRoutes.ADMIN, tenant), definition),
                "PUT /api/v1/workflows/" + name);
        return name;
    }

    /** A bulk action (a durable job) over the workflow's FAILED runs, of which there are none: its id to address. */
    String bulkActionMatchingNothing(String tenant, String workflow) {
        Api.Reply reply = expect(202, http.send("POST", "/api/v1/bulk-actions", http.jsonHeaders(ContractRoutes.OPERATOR, tenant),
                "{\"action\":\"cancel\",\"filter\":{\"workflow\":\"" + workflow + "\",\"status\":\"FAILED\"}}"),
                "POST /api/v1/bulk-actions");
        return reply.json().path("id").asText();
    }

    String etag(String tenant, String path) {
        Api.Reply reply = expect(200, http.get(path, ContractRoutes.ADMIN, tenant), "GET " + path);
        if (reply.etag() == null) {
            throw new AssertionError("GET " + path + " has no ETag: " + reply.excerpt());
        }
        return reply.etag();
    }

    static Api.Reply expect(int status, Api.Reply reply, String what) {
        if (reply.status() != status) {
            throw new AssertionError("fixture " + what + ": expected " + status + " but got " + reply.excerpt());
        }
        return reply;
    }

    // ---- addressing ---------------------------------------------------------------------------------------------

    /** The real id for a path parameter that follows {@code collection} (workflows, runs, tasks, pools, rules, schedules). */
    String idFor(String collection, boolean foreign) {
        return switch (collection) {
            case "workflows" -> foreign ? foreignWorkflow : workflow;
            case "runs" -> foreign ? foreignRunId : runId;
            case "tasks" -> foreign ? foreignTaskId : taskId;
            case "pools" -> foreign ? foreignPool : pool;
            case "rules" -> foreign ? foreignRule : rule;
            case "schedules" -> foreign ? foreignSchedule : schedule;
            case "bulk-actions" -> foreign ? foreignBulkAction : bulkAction;
            default -> null;
        };
    }

    /** The collection a path parameter belongs to: the segment before it. */
    static String collectionOf(String template, String param) {
        String[] segments = template.split("/");
        for (int i = 1; i < segments.length; i++) {
            if (segments[i].equals("{" + param + "}")) {
                return segments[i - 1];
            }
        }
        return "";
    }

    /** The operation's path with every parameter filled: {@code overrides} (raw, encoded here) or the world's ids. */
    String path(OpenApiRoutes.Operation operation, Map<String, String> overrides) {
        String path = operation.template();
        for (String param : operation.pathParams()) {
            String raw = overrides.containsKey(param) ? overrides.get(param) : idFor(collectionOf(operation.template(), param), false);
            if (raw == null) {
                raw = "guard-unknown-" + param;
            }
            path = path.replace("{" + param + "}", Api.segment(raw));
        }
        return path;
    }

    /** The current ETag of the resource a versioned route edits (null for NONE). */
    String currentEtag(ContractRoutes.Versioned versioned) {
        return switch (versioned) {
            case WORKFLOW -> etag(tenant, "/api/v1/workflows/" + workflow);
            case RUN -> etag(tenant, "/api/v1/runs/" + runId);
            case POOL -> pool == null ? null : etag(tenant, "/api/v1/pools/" + pool);
            case RULE -> rule == null ? null : etag(tenant, "/api/v1/rules/" + rule);
            case SCHEDULE -> schedule == null ? null : etag(tenant, "/api/v1/schedules/" + schedule);
            default -> null;
        };
    }
}
