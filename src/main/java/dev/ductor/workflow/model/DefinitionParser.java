package dev.ductor.workflow.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.workflow.expr.Expression;
import dev.ductor.workflow.expr.ExpressionProblem;
import dev.ductor.workflow.expr.InvalidExpressionException;
import dev.ductor.workflow.expr.Scope;
import dev.ductor.workflow.expr.Template;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Turns a submitted JSON document into a {@link WorkflowDefinition}, or refuses it with every violation
 * found, each naming the offending node. Pure: the set of known handlers is passed in.
 *
 * <p>Unknown fields are refused rather than ignored: a misspelt {@code dependOn} silently dropped would
 * turn a chain into a fan-out.
 */
public final class DefinitionParser {

    public static final int MAX_NODES = 500;
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final Pattern POOL = Pattern.compile("[A-Za-z0-9_.-]{1,100}");
    /** The most items of one fan-out that a definition may let run at a time. */
    public static final int MAX_CONCURRENCY = 1000;
    /** The fields a definition, a node and a retry policy may have (the API's schema lists the same: BodySchemasTest). */
    public static final Set<String> DOCUMENT_FIELDS = Set.of("name", "nodes", "output", "retention");
    public static final Set<String> NODE_FIELDS = Set.of(
            "id", "type", "handler", "pool", "signal", "timeout", "duration", "dependsOn", "retry", "input",
            "when", "runIf", "allowFailure", "forEach", "maxConcurrency", "workflow", "revision");
    public static final Set<String> RETRY_FIELDS = Set.of("maxAttempts", "backoff");

    private final Predicate<String> knownHandler;

    public DefinitionParser(Predicate<String> knownHandler) {
        this.knownHandler = knownHandler;
    }

    public WorkflowDefinition parse(String name, JsonNode document) {
        List<Violation> violations = new ArrayList<>();
        if (document == null || !document.isObject()) {
            throw new InvalidDefinitionException(List.of(new Violation(null, null, "the definition must be a JSON object")));
        }
        unknownFields(document, DOCUMENT_FIELDS, null, violations);
        JsonNode declaredName = document.get("name");
        if (declaredName != null && !(declaredName.isTextual() && declaredName.asText().equals(name))) {
            violations.add(new Violation(null, "name", "name must equal the name in the path ('" + name + "')"));
        }
        Duration retention = retention(document, violations);
        JsonNode nodesJson = document.get("nodes");
        if (nodesJson == null || !nodesJson.isArray() || nodesJson.isEmpty()) {
            violations.add(new Violation(null, "nodes", "nodes must be a non-empty array"));
            throw new InvalidDefinitionException(violations);
        }
        if (nodesJson.size() > MAX_NODES) {
            violations.add(new Violation(null, "nodes", "at most " + MAX_NODES + " nodes are allowed"));
            throw new InvalidDefinitionException(violations);
        }
        Map<String, NodeDefinition> nodes = new LinkedHashMap<>();
        // Every id the document declares, its refused nodes' too: a node that depends on a node refused for its own
        // fault (an unknown handler) depends on something that exists, and that fault is reported once, on its node.
        Set<String> declared = new HashSet<>();
        int index = 0;
        for (JsonNode nodeJson : nodesJson) {
            if (nodeJson.isObject() && nodeJson.path("id").isTextual()) {
                declared.add(nodeJson.get("id").asText());
            }
            NodeDefinition node = parseNode(nodeJson, index++, violations);
            if (node == null) {
                continue;
            }
            if (nodes.putIfAbsent(node.id(), node) != null) {
                violations.add(new Violation(node.id(), "id", "duplicate node id '" + node.id() + "'"));
            }
        }
        checkDependencies(nodes, declared, violations);
        if (violations.isEmpty()) {
            List<String> cycle = Cycles.find(nodes);
            if (!cycle.isEmpty()) {
                violations.add(new Violation(cycle.get(0), "dependsOn",
                        "dependency cycle: " + String.join(" -> ", cycle)));
            }
        }
        if (!violations.isEmpty()) {
            throw new InvalidDefinitionException(violations);
        }
        // Expressions last: which nodes one may read follows from the dependencies, known to be acyclic only now.
        Map<String, NodeDefinition> compiled = new LinkedHashMap<>();
        Map<String, Set<String>> ancestors = Ancestors.of(nodes);
        for (NodeDefinition node : nodes.values()) {
            compiled.put(node.id(), compileExpressions(node, nodesJson, ancestors.get(node.id()), violations));
        }
        Template output = template(document.get("output"), new Scope(nodes.keySet(), false), null, "output", violations);
        if (!violations.isEmpty()) {
            throw new InvalidDefinitionException(violations);
        }
        return new WorkflowDefinition(name, List.copyOf(compiled.values()), output, retention);
    }

    /** The node with its {@code input}, {@code when} and {@code forEach} compiled in the scope its dependencies give. */
    private static NodeDefinition compileExpressions(NodeDefinition node, JsonNode nodesJson, Set<String> readable,
                                                     List<Violation> violations) {
        JsonNode json = null;
        for (JsonNode candidate : nodesJson) {
            if (node.id().equals(candidate.path("id").asText(null))) {
                json = candidate;
                break;
            }
        }
        Scope outer = new Scope(readable, false);
        Expression when = expression(json.get("when"), outer, node.id(), "when", violations);
        Expression forEach = expression(json.get("forEach"), outer, node.id(), "forEach", violations);
        Template input = template(json.get("input"), new Scope(readable, forEach != null || json.hasNonNull("forEach")),
                node.id(), "input", violations);
        if (node.type() == NodeType.TASK && "http".equals(node.handler())) {
            httpInputDecidedByTheDefinition(node.id(), json.get("input"), violations);
        }
        return new NodeDefinition(node.id(), node.type(), node.handler(), node.pool(), node.signal(), node.timeout(),
                node.duration(), node.dependsOn(), node.retry(), input, when, node.runIf(), node.allowFailure(), forEach,
                node.maxConcurrency(), node.workflow(), node.revision());
    }

    /**
     * The http step reaches whatever its input names, with the pod's secrets: so its input is the admin's, written in
     * the definition. Parts of it may come from the run's input through expressions the admin wrote, but not the
     * whole request, and never its {@code auth}: a caller who starts a run must not choose which secret goes where.
     */
    private static void httpInputDecidedByTheDefinition(String id, JsonNode input, List<Violation> violations) {
        if (input == null || input.isNull() || !input.isObject()) {
            violations.add(new Violation(id, "input", "an http node needs its request written in its input, an object"
                    + " such as {\"url\": \"https://...\", \"method\": \"POST\"}; take parts of it from the run's input"
                    + " with expressions such as \"${{ input.orderId }}\""));
            return;
        }
        JsonNode auth = input.get("auth");
        if (auth != null && auth.toString().contains("${{")) {
            violations.add(new Violation(id, "input.auth", "auth must be written in the definition, not computed by an"
                    + " expression: the run's input must not choose which secret is sent where"));
        }
    }

    private static Expression expression(JsonNode value, Scope scope, String id, String field, List<Violation> violations) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual() || value.asText().isBlank()) {
            violations.add(new Violation(id, field, field + " must be a CEL expression in a string"));
            return null;
        }
        try {
            return Expression.compile(value.asText(), scope);
        } catch (InvalidExpressionException e) {
            e.problems().forEach(p -> violations.add(new Violation(id, field, problem(field, p))));
            return null;
        }
    }

    private static Template template(JsonNode value, Scope scope, String id, String field, List<Violation> violations) {
        if (value == null || value.isNull()) {
            return null;
        }
        try {
            return Template.compile(value, scope);
        } catch (InvalidExpressionException e) {
            e.problems().forEach(p -> violations.add(new Violation(id, p.path().isEmpty() ? field : field + "." + p.path(),
                    problem(field, p))));
            return null;
        }
    }

    private static String problem(String field, ExpressionProblem problem) {
        return field + (problem.path().isEmpty() ? "" : "." + problem.path()) + ": expression '" + problem.expression()
                + "': " + problem.message();
    }

    private NodeDefinition parseNode(JsonNode json, int index, List<Violation> violations) {
        if (!json.isObject()) {
            violations.add(new Violation(null, "nodes[" + index + "]", "each node must be a JSON object"));
            return null;
        }
        String id = text(json, "id");
        if (id == null || !ID.matcher(id).matches()) {
            violations.add(new Violation(id, "id", "nodes[" + index + "].id must be 1-64 characters of A-Z a-z 0-9 _ . -"));
            return null;
        }
        int before = violations.size();
        unknownFields(json, NODE_FIELDS, id, violations);
        for (String field : List.of("type", "handler", "pool", "signal", "timeout", "duration", "workflow")) {
            JsonNode value = json.get(field);
            if (value != null && !value.isNull() && (!value.isTextual() || value.asText().isBlank())) {
                violations.add(new Violation(id, field, field + " must be a non-blank string"));
            }
        }
        String typeName = text(json, "type");
        NodeType type = typeName == null ? null : NodeType.fromWire(typeName).orElse(null);
        if (type == null) {
            violations.add(new Violation(id, "type", "unknown node type '" + typeName + "' (task, signal, timer or workflow)"));
        }
        String handler = text(json, "handler");
        String signal = text(json, "signal");
        Duration timeout = duration(json, "timeout", id, violations);
        Duration duration = duration(json, "duration", id, violations);
        if (type == NodeType.TASK) {
            if (handler == null) {
                violations.add(new Violation(id, "handler", "a task node needs a handler"));
            } else if (!knownHandler.test(handler)) {
                violations.add(new Violation(id, "handler", "unknown handler '" + handler
                        + "' (in-process: noop, echo, sleep, fail, http; external workers: ext:<name>)"));
            }
        }
        if (type == NodeType.SIGNAL && signal == null) {
            violations.add(new Violation(id, "signal", "a signal node needs the signal name it waits for"));
        }
        if (type == NodeType.TIMER && duration == null) {
            violations.add(new Violation(id, "duration", "a timer node needs an ISO-8601 duration such as PT5S"));
        }
        String workflow = text(json, "workflow");
        if (type == NodeType.WORKFLOW) {
            if (workflow == null || !ID.matcher(workflow).matches()) {
                violations.add(new Violation(id, "workflow", "a workflow node needs the name of the workflow it starts"));
            }
        } else if (workflow != null) {
            violations.add(new Violation(id, "workflow", "only a workflow node starts a child workflow"));
        }
        Integer revision = null;
        JsonNode revisionJson = json.get("revision");
        if (revisionJson != null && !revisionJson.isNull()) {
            if (type != NodeType.WORKFLOW || !revisionJson.isIntegralNumber() || !revisionJson.canConvertToInt()
                    || revisionJson.asInt() < 1) {
                violations.add(new Violation(id, "revision", "revision is a workflow node's positive revision number"));
            } else {
                revision = revisionJson.asInt();
            }
        }
        RunIf runIf = RunIf.ALL_SUCCEEDED;
        JsonNode runIfJson = json.get("runIf");
        if (runIfJson != null && !runIfJson.isNull()) {
            runIf = RunIf.fromWire(runIfJson.asText()).orElse(null);
            if (runIf == null || !runIfJson.isTextual()) {
                violations.add(new Violation(id, "runIf", "runIf is one of allSucceeded, noneFailed, anyFailed, allDone"));
                runIf = RunIf.ALL_SUCCEEDED;
            }
        }
        boolean allowFailure = false;
        JsonNode allowFailureJson = json.get("allowFailure");
        if (allowFailureJson != null && !allowFailureJson.isNull()) {
            if (!allowFailureJson.isBoolean()) {
                violations.add(new Violation(id, "allowFailure", "allowFailure is true or false"));
            } else {
                allowFailure = allowFailureJson.asBoolean();
            }
        }
        JsonNode forEachJson = json.get("forEach");
        if (forEachJson != null && !forEachJson.isNull() && type != NodeType.TASK) {
            violations.add(new Violation(id, "forEach", "only a task node fans out with forEach"));
        }
        int maxConcurrency = 0;
        JsonNode maxConcurrencyJson = json.get("maxConcurrency");
        if (maxConcurrencyJson != null && !maxConcurrencyJson.isNull()) {
            if (forEachJson == null || forEachJson.isNull()) {
                violations.add(new Violation(id, "maxConcurrency", "maxConcurrency bounds a forEach node's items"));
            } else if (!maxConcurrencyJson.isIntegralNumber() || !maxConcurrencyJson.canConvertToInt()
                    || maxConcurrencyJson.asInt() < 1 || maxConcurrencyJson.asInt() > MAX_CONCURRENCY) {
                violations.add(new Violation(id, "maxConcurrency", "maxConcurrency must be an integer from 1 to " + MAX_CONCURRENCY));
            } else {
                maxConcurrency = maxConcurrencyJson.asInt();
            }
        }
        if ((type == NodeType.SIGNAL || type == NodeType.TIMER) && json.hasNonNull("input")) {
            violations.add(new Violation(id, "input", "a " + type.wireName() + " node takes no input"));
        }
        String pool = text(json, "pool");
        if (pool != null && !POOL.matcher(pool).matches()) {
            violations.add(new Violation(id, "pool", "a pool name is 1-100 characters of A-Z a-z 0-9 _ . -"));
        }
        List<String> dependsOn = dependsOn(json, id, violations);
        RetryPolicy retry = retry(json.get("retry"), id, violations);
        if (violations.size() > before) {
            return null;
        }
        // Expressions are compiled once the dependencies are known to be acyclic (compileExpressions).
        return new NodeDefinition(id, type, handler, pool, signal, timeout, duration, dependsOn, retry, null, null, runIf,
                allowFailure, null, maxConcurrency, workflow, revision);
    }

    private static void checkDependencies(Map<String, NodeDefinition> nodes, Set<String> declared, List<Violation> violations) {
        for (NodeDefinition node : nodes.values()) {
            for (String dependency : node.dependsOn()) {
                if (!declared.contains(dependency)) {
                    violations.add(new Violation(node.id(), "dependsOn", "unknown dependency '" + dependency + "'"));
                }
            }
        }
    }

    private static List<String> dependsOn(JsonNode json, String id, List<Violation> violations) {
        JsonNode deps = json.get("dependsOn");
        if (deps == null || deps.isNull()) {
            return List.of();
        }
        if (!deps.isArray()) {
            violations.add(new Violation(id, "dependsOn", "dependsOn must be an array of node ids"));
            return List.of();
        }
        List<String> result = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (JsonNode dep : deps) {
            if (!dep.isTextual()) {
                violations.add(new Violation(id, "dependsOn", "dependsOn must be an array of node ids"));
            } else if (seen.add(dep.asText())) {
                result.add(dep.asText());
            }
        }
        return result;
    }

    private static RetryPolicy retry(JsonNode json, String id, List<Violation> violations) {
        if (json == null || json.isNull()) {
            return RetryPolicy.NONE;
        }
        if (!json.isObject()) {
            violations.add(new Violation(id, "retry", "retry must be an object {maxAttempts, backoff}"));
            return RetryPolicy.NONE;
        }
        unknownFields(json, RETRY_FIELDS, id, violations);
        JsonNode max = json.get("maxAttempts");
        int maxAttempts = 1;
        if (max != null) {
            if (!max.canConvertToInt() || !max.isIntegralNumber() || max.asInt() < 1 || max.asInt() > 100) {
                violations.add(new Violation(id, "retry.maxAttempts", "maxAttempts must be an integer from 1 to 100"));
            } else {
                maxAttempts = max.asInt();
            }
        }
        Duration backoff = duration(json, "backoff", id, violations);
        return new RetryPolicy(maxAttempts, backoff == null ? Duration.ZERO : backoff);
    }

    /**
     * How long finished runs of this revision are kept: a positive ISO-8601 duration (P7D, PT12H). Absent: the server's
     * {@code ductor.retention.default}. Zero is refused rather than read as "forever": a typo must not keep data for good
     * or delete it at once.
     */
    private static Duration retention(JsonNode document, List<Violation> violations) {
        JsonNode value = document.get("retention");
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            violations.add(new Violation(null, "retention", "retention must be an ISO-8601 duration such as P7D, a string"));
            return null;
        }
        Duration parsed = duration(document, "retention", null, violations);
        if (parsed != null && parsed.isZero()) {
            violations.add(new Violation(null, "retention", "retention must be longer than zero, e.g. P7D; leave it out for"
                    + " the server's default"));
            return null;
        }
        return parsed;
    }

    private static Duration duration(JsonNode json, String field, String id, List<Violation> violations) {
        JsonNode value = json.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        try {
            Duration parsed = Duration.parse(value.asText());
            if (parsed.isNegative()) {
                violations.add(new Violation(id, field, field + " must not be negative"));
                return null;
            }
            return parsed;
        } catch (DateTimeParseException e) {
            violations.add(new Violation(id, field, field + " must be an ISO-8601 duration such as PT5S, not '"
                    + value.asText() + "'"));
            return null;
        }
    }

    private static void unknownFields(JsonNode json, Set<String> allowed, String id, List<Violation> violations) {
        for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
            String field = names.next();
            if (!allowed.contains(field)) {
                violations.add(new Violation(id, field, "unknown field '" + field + "'"));
            }
        }
    }

    private static String text(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value != null && value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
    }
}
