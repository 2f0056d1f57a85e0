package dev.ductor.workflow.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Submitted definitions: what parses, and how each mistake is refused with the offending node named. */
@Tag("unit")
class DefinitionParserTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final DefinitionParser PARSER = new DefinitionParser(
            h -> Set.of("noop", "echo", "sleep", "fail", "http").contains(h) || h.startsWith("ext:"));

    static final String CONTRACT_EXAMPLE = """
            { "name": "order", "nodes": [
              {"id": "reserve", "type": "task", "handler": "noop", "retry": {"maxAttempts": 3, "backoff": "PT1S"}},
              {"id": "paid", "type": "signal", "signal": "paid", "timeout": "PT1H", "dependsOn": ["reserve"]},
              {"id": "cool", "type": "timer", "duration": "PT5S", "dependsOn": ["paid"]},
              {"id": "ship", "type": "task", "handler": "noop", "pool": "shipping", "dependsOn": ["cool"]} ] }
            """;

    private static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static WorkflowDefinition parseNodes(String nodesArray) {
        return PARSER.parse("wf", json("{\"name\": \"wf\", \"nodes\": " + nodesArray + "}"));
    }

    private static InvalidDefinitionException refuse(String name, JsonNode document) {
        return assertThrows(InvalidDefinitionException.class, () -> PARSER.parse(name, document));
    }

    private static InvalidDefinitionException refuseNodes(String nodesArray) {
        return refuse("wf", json("{\"name\": \"wf\", \"nodes\": " + nodesArray + "}"));
    }

    /** Some violation names {@code node} and {@code field}, and its message contains {@code text}. */
    private static void assertViolation(InvalidDefinitionException e, String node, String field, String text) {
        assertTrue(e.violations().stream().anyMatch(v -> java.util.Objects.equals(node, v.node())
                        && java.util.Objects.equals(field, v.field())
                        && v.message().contains(text)),
                "no violation (" + node + ", " + field + ", ~'" + text + "') in " + e.violations());
    }

    private static Set<String> nodesNamed(InvalidDefinitionException e) {
        return e.violations().stream().map(Violation::node).collect(Collectors.toSet());
    }

    @Test
    void aRetentionIsAPositiveDurationKeptWithTheDefinition() {
        String node = "[{\"id\": \"a\", \"type\": \"task\", \"handler\": \"noop\"}]";
        assertEquals(java.time.Duration.ofDays(7), PARSER.parse("wf", json("{\"retention\": \"P7D\", \"nodes\": " + node + "}"))
                .ownRetention().orElseThrow());
        assertTrue(parseNodes(node).ownRetention().isEmpty(), "no retention of its own: the server's default");
        assertViolation(refuse("wf", json("{\"retention\": \"a week\", \"nodes\": " + node + "}")), null, "retention", "ISO-8601");
        assertViolation(refuse("wf", json("{\"retention\": \"PT0S\", \"nodes\": " + node + "}")), null, "retention", "longer than zero");
        assertViolation(refuse("wf", json("{\"retention\": \"-P1D\", \"nodes\": " + node + "}")), null, "retention", "negative");
        assertViolation(refuse("wf", json("{\"retention\": 7, \"nodes\": " + node + "}")), null, "retention", "a string");
    }

    @Nested
    class Valid {

        @Test
        void contractExampleParses() {
            WorkflowDefinition def = PARSER.parse("order", json(CONTRACT_EXAMPLE));

            assertEquals("order", def.name());
            assertEquals(List.of("reserve", "paid", "cool", "ship"), def.nodes().stream().map(NodeDefinition::id).toList());

            NodeDefinition reserve = def.node("reserve").orElseThrow();
            assertEquals(NodeType.TASK, reserve.type());
            assertEquals("noop", reserve.handler());
            assertEquals(new RetryPolicy(3, Duration.ofSeconds(1)), reserve.retry());
            assertEquals(List.of(), reserve.dependsOn());

            NodeDefinition paid = def.node("paid").orElseThrow();
            assertEquals(NodeType.SIGNAL, paid.type());
            assertEquals("paid", paid.signal());
            assertEquals(Duration.ofHours(1), paid.timeout());
            assertEquals(List.of("reserve"), paid.dependsOn());
            assertEquals(RetryPolicy.NONE, paid.retry());

            NodeDefinition cool = def.node("cool").orElseThrow();
            assertEquals(NodeType.TIMER, cool.type());
            assertEquals(Duration.ofSeconds(5), cool.duration());

            NodeDefinition ship = def.node("ship").orElseThrow();
            assertEquals("shipping", ship.pool());
            assertEquals(List.of("cool"), ship.dependsOn());
            assertNull(ship.input());
        }

        @Test
        void nameMayBeOmittedFromTheDocument() {
            WorkflowDefinition def = PARSER.parse("anything", json("""
                    {"nodes": [{"id": "a", "type": "task", "handler": "echo"}]}"""));
            assertEquals("anything", def.name());
        }

        @Test
        void externalHandlersStaticInputAndDiamondParse() {
            WorkflowDefinition def = parseNodes("""
                    [
                      {"id": "a", "type": "task", "handler": "ext:billing", "input": {"amount": 5}},
                      {"id": "b", "type": "task", "handler": "http", "dependsOn": ["a"], "input": {"url": "https://example.com"}},
                      {"id": "c", "type": "task", "handler": "sleep", "dependsOn": ["a"]},
                      {"id": "d", "type": "task", "handler": "fail", "dependsOn": ["b", "c", "b"]}
                    ]""");
            assertEquals(json("{\"amount\": 5}"), def.node("a").orElseThrow().inputSource());
            assertEquals(List.of("b", "c"), def.node("d").orElseThrow().dependsOn(), "duplicates collapse");
            assertEquals(List.of("a", "b", "c", "d"), List.copyOf(def.nodesById().keySet()));
        }

        @Test
        void dependencyMayBeDeclaredAfterItsDependant() {
            WorkflowDefinition def = parseNodes("""
                    [
                      {"id": "late", "type": "task", "handler": "noop", "dependsOn": ["early"]},
                      {"id": "early", "type": "task", "handler": "noop"}
                    ]""");
            assertEquals(List.of("early"), def.node("late").orElseThrow().dependsOn());
        }

        @Test
        void exactlyMaxNodesParse() {
            assertEquals(DefinitionParser.MAX_NODES, PARSER.parse("big", manyNodes(DefinitionParser.MAX_NODES, true)).nodes().size());
        }

        @Test
        void nullOptionalFieldsAreAbsent() {
            WorkflowDefinition def = parseNodes("""
                    [{"id": "a", "type": "task", "handler": "noop", "dependsOn": null, "retry": null, "timeout": null}]""");
            NodeDefinition a = def.nodes().get(0);
            assertEquals(List.of(), a.dependsOn());
            assertEquals(RetryPolicy.NONE, a.retry());
            assertNull(a.timeout());
        }
    }

    /** {@code count} task nodes, each depending on the one before when {@code chained}. */
    private static JsonNode manyNodes(int count, boolean chained) {
        ObjectNode doc = MAPPER.createObjectNode();
        ArrayNode nodes = doc.putArray("nodes");
        for (int i = 0; i < count; i++) {
            ObjectNode n = nodes.addObject().put("id", "n" + i).put("type", "task").put("handler", "noop");
            if (chained && i > 0) {
                n.putArray("dependsOn").add("n" + (i - 1));
            }
        }
        return doc;
    }

    @Nested
    class Graph {

        @Test
        void aNodeWithAnUnknownHandlerIsReportedOnceAndItsDependantsAreNotBlamed() {
            InvalidDefinitionException e = refuseNodes("""
                    [{"id": "a", "type": "task", "handler": "noop"},
                     {"id": "b", "type": "task", "handler": "nope", "dependsOn": ["a"]},
                     {"id": "c", "type": "task", "handler": "noop", "dependsOn": ["b"]}]""");
            assertEquals(1, e.violations().size(), "each real fault once: " + e.violations());
            assertViolation(e, "b", "handler", "unknown handler 'nope'");
        }

        @Test
        void aDependencyOnAMissingNodeIsStillReportedBesideAnotherNodesFault() {
            InvalidDefinitionException e = refuseNodes("""
                    [{"id": "b", "type": "task", "handler": "nope"},
                     {"id": "c", "type": "task", "handler": "noop", "dependsOn": ["b", "ghost"]}]""");
            assertEquals(2, e.violations().size(), e.violations().toString());
            assertViolation(e, "b", "handler", "unknown handler 'nope'");
            assertViolation(e, "c", "dependsOn", "unknown dependency 'ghost'");
        }

        @Test
        void twoNodeCycleIsRefusedNamingANodeOnIt() {
            InvalidDefinitionException e = refuseNodes("""
                    [
                      {"id": "a", "type": "task", "handler": "noop", "dependsOn": ["b"]},
                      {"id": "b", "type": "task", "handler": "noop", "dependsOn": ["a"]}
                    ]""");
            assertEquals(1, e.violations().size());
            Violation v = e.violations().get(0);
            assertTrue(Set.of("a", "b").contains(v.node()), v.toString());
            assertEquals("dependsOn", v.field());
            assertTrue(v.message().contains("cycle"), v.message());
            assertTrue(v.message().contains("a -> b -> a") || v.message().contains("b -> a -> b"), v.message());
        }

        @Test
        void selfDependencyIsACycle() {
            InvalidDefinitionException e = refuseNodes("""
                    [
                      {"id": "ok", "type": "task", "handler": "noop"},
                      {"id": "me", "type": "task", "handler": "noop", "dependsOn": ["ok", "me"]}
                    ]""");
            assertViolation(e, "me", "dependsOn", "me -> me");
        }

        @Test
        void longerCycleBehindAnAcyclicPrefixIsFound() {
            InvalidDefinitionException e = refuseNodes("""
                    [
                      {"id": "start", "type": "task", "handler": "noop", "dependsOn": ["x"]},
                      {"id": "x", "type": "task", "handler": "noop", "dependsOn": ["y"]},
                      {"id": "y", "type": "task", "handler": "noop", "dependsOn": ["z"]},
                      {"id": "z", "type": "task", "handler": "noop", "dependsOn": ["x"]}
                    ]""");
            Violation v = e.violations().get(0);
            assertTrue(Set.of("x", "y", "z").contains(v.node()), "names a node on the cycle, not " + v.node());
            assertTrue(v.message().contains("cycle"), v.message());
            assertTrue(!v.message().contains("start"), v.message());
        }

        @Test
        void unknownDependencyIsRefused() {
            InvalidDefinitionException e = refuseNodes("""
                    [
                      {"id": "a", "type": "task", "handler": "noop"},
                      {"id": "b", "type": "task", "handler": "noop", "dependsOn": ["a", "ghost"]}
                    ]""");
            assertEquals(1, e.violations().size());
            assertViolation(e, "b", "dependsOn", "ghost");
            assertTrue(e.getMessage().contains("node 'b'"), e.getMessage());
        }

        @Test
        void dependsOnMustBeAnArrayOfIds() {
            assertViolation(refuseNodes("""
                    [{"id": "a", "type": "task", "handler": "noop", "dependsOn": "b"}]"""), "a", "dependsOn", "array");
            assertViolation(refuseNodes("""
                    [{"id": "a", "type": "task", "handler": "noop", "dependsOn": [1]}]"""), "a", "dependsOn", "array");
        }

        @Test
        void duplicateNodeIdIsRefused() {
            InvalidDefinitionException e = refuseNodes("""
                    [
                      {"id": "a", "type": "task", "handler": "noop"},
                      {"id": "a", "type": "timer", "duration": "PT1S"}
                    ]""");
            assertEquals(1, e.violations().size());
            assertViolation(e, "a", "id", "duplicate");
        }
    }

    @Nested
    class Nodes {

        @Test
        void unknownNodeTypeIsRefused() {
            InvalidDefinitionException e = refuseNodes("""
                    [{"id": "a", "type": "job", "handler": "noop"}]""");
            assertViolation(e, "a", "type", "job");
        }

        @Test
        void missingNodeTypeIsRefused() {
            assertViolation(refuseNodes("""
                    [{"id": "a", "handler": "noop"}]"""), "a", "type", "unknown node type");
        }

        @Test
        void unknownHandlerIsRefused() {
            InvalidDefinitionException e = refuseNodes("""
                    [{"id": "a", "type": "task", "handler": "teleport"}]""");
            assertEquals(1, e.violations().size());
            assertViolation(e, "a", "handler", "teleport");
        }

        @Test
        void taskWithoutHandlerIsRefused() {
            assertViolation(refuseNodes("""
                    [{"id": "a", "type": "task"}]"""), "a", "handler", "needs a handler");
            assertViolation(refuseNodes("""
                    [{"id": "a", "type": "task", "handler": "  "}]"""), "a", "handler", "needs a handler");
        }

        @Test
        void signalWithoutSignalNameIsRefused() {
            InvalidDefinitionException e = refuseNodes("""
                    [{"id": "s", "type": "signal", "timeout": "PT1M"}]""");
            assertEquals(1, e.violations().size());
            assertViolation(e, "s", "signal", "signal name");
        }

        @Test
        void timerWithoutDurationIsRefused() {
            InvalidDefinitionException e = refuseNodes("""
                    [{"id": "t", "type": "timer"}]""");
            assertViolation(e, "t", "duration", "ISO-8601");
        }

        @ParameterizedTest
        @ValueSource(strings = {"\"5s\"", "\"PT\"", "\"soon\"", "5", "\"-PT5S\""})
        void timerWithBadDurationIsRefused(String duration) {
            InvalidDefinitionException e = refuseNodes("[{\"id\": \"t\", \"type\": \"timer\", \"duration\": " + duration + "}]");
            assertViolation(e, "t", "duration", "duration");
            assertEquals(Set.of("t"), nodesNamed(e));
        }

        @Test
        void badSignalTimeoutIsRefused() {
            assertViolation(refuseNodes("""
                    [{"id": "s", "type": "signal", "signal": "go", "timeout": "an hour"}]"""), "s", "timeout", "an hour");
        }

        @ParameterizedTest
        @ValueSource(strings = {
                "{\"maxAttempts\": 0}",
                "{\"maxAttempts\": 101}",
                "{\"maxAttempts\": -1}",
                "{\"maxAttempts\": 2.5}",
                "{\"maxAttempts\": \"3\"}",
                "{\"maxAttempts\": 3, \"backoff\": \"1s\"}",
                "{\"maxAttempts\": 3, \"backoff\": \"-PT1S\"}",
                "{\"maxAttempts\": 3, \"backof\": \"PT1S\"}",
                "3",
                "[3]"})
        void badRetryIsRefused(String retry) {
            InvalidDefinitionException e = refuseNodes(
                    "[{\"id\": \"r\", \"type\": \"task\", \"handler\": \"noop\", \"retry\": " + retry + "}]");
            assertEquals(Set.of("r"), nodesNamed(e), e.violations().toString());
            assertTrue(e.violations().stream().anyMatch(v -> v.field().startsWith("retry") || v.field().startsWith("back")),
                    e.violations().toString());
        }

        @Test
        void retryBoundsAreInclusive() {
            assertEquals(1, parseNodes("""
                    [{"id": "r", "type": "task", "handler": "noop", "retry": {"maxAttempts": 1}}]""")
                    .nodes().get(0).retry().maxAttempts());
            assertEquals(100, parseNodes("""
                    [{"id": "r", "type": "task", "handler": "noop", "retry": {"maxAttempts": 100, "backoff": "PT0S"}}]""")
                    .nodes().get(0).retry().maxAttempts());
        }

        @Test
        void misspeltDependsOnIsRefusedRatherThanIgnored() {
            InvalidDefinitionException e = refuseNodes("""
                    [
                      {"id": "a", "type": "task", "handler": "noop"},
                      {"id": "b", "type": "task", "handler": "noop", "dependOn": ["a"]}
                    ]""");
            assertViolation(e, "b", "dependOn", "unknown field 'dependOn'");
        }

        @Test
        void unknownFieldAtTheTopIsRefused() {
            InvalidDefinitionException e = refuse("wf", json("""
                    {"name": "wf", "version": 2, "nodes": [{"id": "a", "type": "task", "handler": "noop"}]}"""));
            assertViolation(e, null, "version", "unknown field");
        }

        @ParameterizedTest
        @ValueSource(strings = {"\"\"", "\"has space\"", "\"a/b\"", "7",
                "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\""})
        void badNodeIdIsRefused(String id) {
            InvalidDefinitionException e = refuseNodes("[{\"id\": " + id + ", \"type\": \"task\", \"handler\": \"noop\"}]");
            assertTrue(e.violations().stream().anyMatch(v -> "id".equals(v.field())), e.violations().toString());
        }

        @Test
        void nodeThatIsNotAnObjectIsRefused() {
            InvalidDefinitionException e = refuseNodes("[\"a\"]");
            assertViolation(e, null, "nodes[0]", "object");
        }

        @Test
        void everyViolationIsReportedNotJustTheFirst() {
            InvalidDefinitionException e = refuseNodes("""
                    [
                      {"id": "a", "type": "task", "handler": "teleport"},
                      {"id": "b", "type": "signal"},
                      {"id": "c", "type": "timer", "duration": "later"}
                    ]""");
            assertTrue(nodesNamed(e).containsAll(Set.of("a", "b", "c")), e.violations().toString());
            assertTrue(e.getMessage().contains("node 'a'") && e.getMessage().contains("node 'b'")
                    && e.getMessage().contains("node 'c'"), e.getMessage());
        }
    }

    @Nested
    class Document {

        @Test
        void emptyNodesAreRefused() {
            assertViolation(refuse("wf", json("{\"name\": \"wf\", \"nodes\": []}")), null, "nodes", "non-empty");
            assertViolation(refuse("wf", json("{\"name\": \"wf\"}")), null, "nodes", "non-empty");
            assertViolation(refuse("wf", json("{\"nodes\": {}}")), null, "nodes", "non-empty");
        }

        @Test
        void nonObjectDocumentIsRefused() {
            for (JsonNode doc : new JsonNode[] {json("[]"), json("\"wf\""), json("42"), NullNode.instance, null}) {
                InvalidDefinitionException e = refuse("wf", doc);
                assertEquals(1, e.violations().size(), String.valueOf(doc));
                assertTrue(e.violations().get(0).message().contains("JSON object"), e.violations().toString());
            }
        }

        @Test
        void nameDifferentFromThePathIsRefused() {
            InvalidDefinitionException e = refuse("order", json("""
                    {"name": "orders", "nodes": [{"id": "a", "type": "task", "handler": "noop"}]}"""));
            assertEquals(1, e.violations().size());
            assertViolation(e, null, "name", "order");
        }

        @Test
        void nonTextualNameIsRefused() {
            assertViolation(refuse("1", json("""
                    {"name": 1, "nodes": [{"id": "a", "type": "task", "handler": "noop"}]}""")), null, "name", "name");
        }

        @Test
        void moreThanMaxNodesAreRefused() {
            InvalidDefinitionException e = refuse("big", manyNodes(DefinitionParser.MAX_NODES + 1, false));
            assertViolation(e, null, "nodes", String.valueOf(DefinitionParser.MAX_NODES));
        }
    }
}
