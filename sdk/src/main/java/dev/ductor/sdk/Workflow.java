package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A workflow definition built in Java rather than written as JSON: {@link #toJson()} gives the document that
 * {@code PUT /api/v1/workflows/{name}} takes, and {@link DuctorClient#putWorkflow(Workflow, Long)} stores it.
 *
 * <pre>{@code
 * Workflow order = Workflow.named("order")
 *     .task("charge", "ext:charge", t -> t.input(Map.of("order", expr("input.orderId"))).allowFailure())
 *     .workflow("ship", "shipping", w -> w.dependsOn("charge").when("nodes.charge.state == 'SUCCEEDED'")
 *         .input(Map.of("order", expr("input.orderId"))))
 *     .task("refund", "http", t -> t.dependsOn("charge").runIf(RunIf.ANY_FAILED)
 *         .input(Map.of("url", "http://payments/refund/${{ input.orderId }}", "method", "POST")))
 *     .task("lines", "ext:pick", t -> t.dependsOn("ship").forEach("input.lines").maxConcurrency(10)
 *         .input(Map.of("sku", expr("item.sku"))))
 *     .output(Map.of("picked", expr("nodes.lines.output")));
 * client.putWorkflow(order, null);
 * }</pre>
 *
 * <p>Strings in an input or output may hold expressions: {@code "${{ expr }}"} alone becomes the expression's value,
 * type kept; inside a longer string it is interpolated as text ({@link #expr(String)} writes the first form).
 * {@code when} and {@code forEach} take a bare CEL expression. The server checks every expression when the definition
 * is saved (a 422 names the node and the field); this builder refuses only what it can see on its own: a duplicate
 * node id, an unknown dependency, and an option the node's type does not take. Not thread-safe; build, then share the
 * JSON.
 */
public final class Workflow {

    private static final ObjectMapper DEFAULT_MAPPER = new ObjectMapper().registerModule(new JavaTimeModule());

    private final String name;
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private Object output;
    private Duration retention;

    private Workflow(String name) {
        this.name = requireText(name, "name");
    }

    /** A new, empty workflow; its name is the one it is stored under. */
    public static Workflow named(String name) {
        return new Workflow(name);
    }

    /** {@code "${{ cel }}"}: in an input or output, replaced by the expression's value with its type kept. */
    public static String expr(String cel) {
        return "${{ " + requireText(cel, "expression") + " }}";
    }

    public String name() {
        return name;
    }

    // ---- nodes -------------------------------------------------------------------------------------------------

    /** A task run by {@code handler}: in-process ({@code noop}, {@code echo}, {@code sleep}, {@code fail}, {@code http}) or {@code ext:<name>}. */
    public Workflow task(String id, String handler) {
        return task(id, handler, n -> { });
    }

    public Workflow task(String id, String handler, Consumer<Node> options) {
        Node node = add(new Node(id, Type.TASK));
        node.json.put("handler", requireText(handler, "handler"));
        options.accept(node);
        return this;
    }

    /** Waits for the signal {@code signal}; the node's output is the signal's payload. */
    public Workflow signal(String id, String signal) {
        return signal(id, signal, n -> { });
    }

    public Workflow signal(String id, String signal, Consumer<Node> options) {
        Node node = add(new Node(id, Type.SIGNAL));
        node.json.put("signal", requireText(signal, "signal"));
        options.accept(node);
        return this;
    }

    /** Waits {@code duration}; the node's output is its fire time. */
    public Workflow timer(String id, Duration duration) {
        return timer(id, duration, n -> { });
    }

    public Workflow timer(String id, Duration duration, Consumer<Node> options) {
        Node node = add(new Node(id, Type.TIMER));
        node.json.put("duration", nonNegative(duration, "duration").toString());
        options.accept(node);
        return this;
    }

    /** Starts a run of the workflow {@code child} (one per attempt) and finishes with it: its output is the node's. */
    public Workflow workflow(String id, String child) {
        return workflow(id, child, n -> { });
    }

    public Workflow workflow(String id, String child, Consumer<Node> options) {
        Node node = add(new Node(id, Type.WORKFLOW));
        node.json.put("workflow", requireText(child, "workflow"));
        options.accept(node);
        return this;
    }

    /**
     * The run's output, a template (a Map, a JsonNode, or any object Jackson writes) whose strings may hold
     * expressions; without one, the run's output is the map of its node outputs.
     */
    public Workflow output(Object template) {
        this.output = template;
        return this;
    }

    /**
     * How long a finished run of this workflow is kept before the server deletes it with its history; without one, the
     * server's {@code ductor.retention.default}. Positive.
     */
    public Workflow retention(Duration period) {
        if (period == null || period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("retention must be a positive duration, not " + period);
        }
        this.retention = period;
        return this;
    }

    // ---- JSON --------------------------------------------------------------------------------------------------

    /** The definition document, its values written with a default mapper (java.time supported). */
    public ObjectNode toJson() {
        return toJson(DEFAULT_MAPPER);
    }

    /** The definition document; {@code mapper} writes the inputs and the output given as objects. */
    public ObjectNode toJson(ObjectMapper mapper) {
        if (nodes.isEmpty()) {
            throw new IllegalStateException("workflow '" + name + "' has no nodes");
        }
        ObjectNode document = mapper.createObjectNode();
        document.put("name", name);
        if (retention != null) {
            document.put("retention", retention.toString());
        }
        if (output != null) {
            document.set("output", mapper.valueToTree(output));
        }
        ArrayNode array = document.putArray("nodes");
        for (Node node : nodes.values()) {
            for (String dependency : node.dependsOn) {
                if (!nodes.containsKey(dependency)) {
                    throw new IllegalStateException("node '" + node.id + "' depends on '" + dependency
                            + "', which workflow '" + name + "' does not have");
                }
            }
            array.add(node.toJson(mapper));
        }
        return document;
    }

    @Override
    public String toString() {
        return toJson().toString();
    }

    private Node add(Node node) {
        if (nodes.putIfAbsent(node.id, node) != null) {
            throw new IllegalArgumentException("workflow '" + name + "' already has a node '" + node.id + "'");
        }
        return node;
    }

    private static String requireText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank");
        }
        return value;
    }

    private static Duration nonNegative(Duration value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative");
        }
        return value;
    }

    private enum Type {
        TASK("task"), SIGNAL("signal"), TIMER("timer"), WORKFLOW("workflow");

        final String wire;

        Type(String wire) {
            this.wire = wire;
        }
    }

    /** One node's options; each returns this node, so they chain. */
    public static final class Node {

        /** The order a document's fields are written in: what the node is, when it runs, what it is given. */
        private static final List<String> FIELD_ORDER = List.of("id", "type", "handler", "signal", "duration", "workflow",
                "revision", "pool", "timeout", "retry", "dependsOn", "when", "runIf", "forEach", "maxConcurrency", "input",
                "allowFailure");

        private final String id;
        private final Type type;
        private final ObjectNode json = DEFAULT_MAPPER.createObjectNode();
        private final Set<String> dependsOn = new LinkedHashSet<>();
        private Object input;
        private boolean hasInput;

        private Node(String id, Type type) {
            this.id = requireText(id, "node id");
            this.type = type;
            json.put("id", id);
            json.put("type", type.wire);
        }

        public String id() {
            return id;
        }

        /** Runs once these nodes have finished (by default, once they all succeeded: see {@link #runIf(RunIf)}). */
        public Node dependsOn(String... ids) {
            for (String dependency : ids) {
                dependsOn.add(requireText(dependency, "dependency"));
            }
            return this;
        }

        /**
         * The task's or child run's input: a template (a Map, a JsonNode, a record...) whose strings may hold
         * expressions such as {@code "${{ nodes.charge.output.chargeId }}"}. Without one, a task gets the run's input.
         */
        public Node input(Object template) {
            only(Set.of(Type.TASK, Type.WORKFLOW), "input");
            this.input = template;
            this.hasInput = true;
            return this;
        }

        /** A CEL boolean: when it is false, the node is SKIPPED, and so are its dependants unless their runIf says otherwise. */
        public Node when(String cel) {
            json.put("when", requireText(cel, "when"));
            return this;
        }

        public Node runIf(RunIf rule) {
            json.put("runIf", Objects.requireNonNull(rule, "runIf").wireName());
            return this;
        }

        /** The node may fail without failing the run. */
        public Node allowFailure() {
            return allowFailure(true);
        }

        public Node allowFailure(boolean allowed) {
            json.put("allowFailure", allowed);
            return this;
        }

        /** A CEL list: the task runs once per item ({@code item} and {@code index} in its input); its output is the list of their outputs. */
        public Node forEach(String cel) {
            only(Set.of(Type.TASK), "forEach");
            json.put("forEach", requireText(cel, "forEach"));
            return this;
        }

        /** At most this many items of the fan-out at a time (1 to 1000). */
        public Node maxConcurrency(int max) {
            only(Set.of(Type.TASK), "maxConcurrency");
            if (max < 1 || max > 1000) {
                throw new IllegalArgumentException("maxConcurrency must be from 1 to 1000, not " + max);
            }
            json.put("maxConcurrency", max);
            return this;
        }

        /** Up to {@code maxAttempts} attempts in all (1 to 100), {@code backoff} apart. */
        public Node retry(int maxAttempts, Duration backoff) {
            if (maxAttempts < 1 || maxAttempts > 100) {
                throw new IllegalArgumentException("maxAttempts must be from 1 to 100, not " + maxAttempts);
            }
            ObjectNode retry = json.putObject("retry");
            retry.put("maxAttempts", maxAttempts);
            if (backoff != null) {
                retry.put("backoff", nonNegative(backoff, "backoff").toString());
            }
            return this;
        }

        /** The pool whose capacity bounds this task's concurrent attempts. */
        public Node pool(String pool) {
            only(Set.of(Type.TASK), "pool");
            json.put("pool", requireText(pool, "pool"));
            return this;
        }

        /** How long a signal node waits: past it, the node fails (the only node type a timeout applies to today). */
        public Node timeout(Duration timeout) {
            only(Set.of(Type.SIGNAL), "timeout");
            json.put("timeout", nonNegative(timeout, "timeout").toString());
            return this;
        }

        /** The child workflow's revision to start (default: its current one). */
        public Node revision(int revision) {
            only(Set.of(Type.WORKFLOW), "revision");
            if (revision < 1) {
                throw new IllegalArgumentException("revision must be positive, not " + revision);
            }
            json.put("revision", revision);
            return this;
        }

        private void only(Set<Type> types, String option) {
            if (!types.contains(type)) {
                throw new IllegalStateException("node '" + id + "': a " + type.wire + " node takes no " + option);
            }
        }

        private ObjectNode toJson(ObjectMapper mapper) {
            if (json.has("maxConcurrency") && !json.has("forEach")) {
                throw new IllegalStateException("node '" + id + "': maxConcurrency bounds a forEach node's items; set forEach");
            }
            ObjectNode fields = json.deepCopy();
            if (!dependsOn.isEmpty()) {
                ArrayNode deps = fields.putArray("dependsOn");
                dependsOn.forEach(deps::add);
            }
            if (hasInput) {
                fields.set("input", input instanceof JsonNode tree ? tree.deepCopy() : mapper.valueToTree(input));
            }
            ObjectNode out = mapper.createObjectNode();
            for (String field : FIELD_ORDER) {
                if (fields.has(field)) {
                    out.set(field, fields.get(field));
                }
            }
            return out;
        }
    }
}
