package dev.ductor.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A run as {@code GET /api/v1/runs/{runId}} shows it; {@link #json()} has every field, the accessors the common ones.
 * A run's status is PENDING, RUNNING, SUCCEEDED, FAILED or CANCELLED; a node's state is one of {@link #NODE_STATES}.
 */
public final class Run {

    private static final Set<String> TERMINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED");
    /** A node's states: SKIPPED is a branch not taken (its {@code when} was false or its trigger could not hold) or an operator's skip. */
    public static final List<String> NODE_STATES = List.of("PENDING", "RUNNING", "WAITING", "SUCCEEDED", "FAILED", "SKIPPED", "CANCELLED");

    private final JsonNode json;

    public Run(JsonNode json) {
        this.json = json;
    }

    public static boolean isTerminal(String status) {
        return TERMINAL.contains(status);
    }

    public JsonNode json() {
        return json;
    }

    public String runId() {
        return json.path("runId").asText();
    }

    public String workflow() {
        return json.path("workflow").asText();
    }

    public String status() {
        return json.path("status").asText();
    }

    public boolean isTerminal() {
        return isTerminal(status());
    }

    /** The run's version: what {@code If-Match} takes for a PATCH. */
    public long version() {
        return json.path("version").asLong();
    }

    /** {@code {id: {state, attempts, output?, error?, input?, items?, skippedBy?}}}; {@link #nodeView(String)} reads one typed. */
    public JsonNode nodes() {
        return json.path("nodes");
    }

    public JsonNode node(String id) {
        return json.path("nodes").path(id);
    }

    /** The node {@code id}, typed, or null when the run has no such node. */
    public Node nodeView(String id) {
        JsonNode node = json.path("nodes").get(id);
        return node == null ? null : Node.of(node);
    }

    /** The run whose {@code workflow} node started this one, or null for a top-level run. */
    public String parentRunId() {
        JsonNode parent = json.get("parentRunId");
        return parent == null || parent.isNull() ? null : parent.asText();
    }

    /** The child runs this run's {@code workflow} nodes started, one per attempt, oldest first (empty when none). */
    public List<Child> children() {
        List<Child> children = new ArrayList<>();
        for (JsonNode c : json.path("children")) {
            children.add(new Child(c.path("runId").asText(), c.path("node").asText(), c.path("attempt").asInt(),
                    c.path("workflow").asText(), c.path("status").asText()));
        }
        return children;
    }

    /** The child run of {@code node}'s latest attempt. */
    public Optional<Child> child(String node) {
        return children().stream().filter(c -> c.node().equals(node)).max(Comparator.comparingInt(Child::attempt));
    }

    /** A child run: {@code node} and {@code attempt} of this run started it. */
    public record Child(String runId, String node, int attempt, String workflow, String status) {
    }

    /**
     * One node of a run. {@code input} is what its expressions gave it (null when its input is static: see the
     * definition); {@code items} are a fan-out's items, in order, each with its own state and attempts (null for a
     * node without {@code forEach}, and before its items are known); {@code skippedBy} is {@code "operator"} for a
     * node an operator skipped.
     */
    public record Node(String state, int attempts, JsonNode output, String error, JsonNode input, List<Node> items,
                       String skippedBy) {

        static Node of(JsonNode n) {
            List<Node> items = null;
            if (n.path("items").isArray()) {
                items = new ArrayList<>();
                for (JsonNode item : n.get("items")) {
                    items.add(of(item));
                }
            }
            return new Node(n.path("state").asText(), n.path("attempts").asInt(), present(n.get("output")),
                    n.hasNonNull("error") ? n.get("error").asText() : null, present(n.get("input")), items,
                    n.hasNonNull("skippedBy") ? n.get("skippedBy").asText() : null);
        }

        private static JsonNode present(JsonNode value) {
            return value == null || value.isMissingNode() ? null : value;
        }

        public boolean isFanOut() {
            return items != null;
        }

        /** How many of a fan-out's items SUCCEEDED (0 for a node without items). */
        public int succeededItems() {
            return items == null ? 0 : (int) items.stream().filter(i -> "SUCCEEDED".equals(i.state())).count();
        }

        /** A fan-out's progress as {@code succeeded/total}, such as {@code 37/100}; null for a node without items. */
        public String progress() {
            return items == null ? null : succeededItems() + "/" + items.size();
        }

        public boolean isSkipped() {
            return "SKIPPED".equals(state);
        }
    }

    /** The tags the run was started with, sorted by key; empty for a run started without. */
    public Map<String, String> tags() {
        return Tags.of(json.path("tags"));
    }

    /** The run's output (set once it SUCCEEDED), or null. */
    public JsonNode output() {
        JsonNode output = json.get("output");
        return output == null || output.isNull() ? null : output;
    }

    /** The output read as {@code type} through {@code mapper}. */
    public <T> T output(ObjectMapper mapper, Class<T> type) {
        JsonNode output = output();
        return output == null ? null : mapper.convertValue(output, type);
    }

    @Override
    public String toString() {
        return json.toString();
    }
}
