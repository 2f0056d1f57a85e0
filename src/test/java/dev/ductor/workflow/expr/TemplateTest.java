package dev.ductor.workflow.expr;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.ductor.workflow.expr.Json.bindings;
import static dev.ductor.workflow.expr.Json.fanOut;
import static dev.ductor.workflow.expr.Json.json;
import static dev.ductor.workflow.expr.Json.scope;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Templates (a node's {@code input}, a workflow's {@code output}): a string that is exactly {@code ${{ expr }}} becomes
 * the value with its type, a placeholder inside text is interpolated, every problem is found when the definition is
 * saved, and an evaluation that fails says which expression met what.
 */
@Tag("unit")
class TemplateTest {

    private static JsonNode eval(String template, Scope scope) {
        return Template.compile(json(template), scope).evaluate(bindings());
    }

    private static JsonNode evalText(String text, Scope scope) {
        return Template.compile(TextNode.valueOf(text), scope).evaluate(bindings());
    }

    private static List<ExpressionProblem> problems(JsonNode template, Scope scope) {
        return assertThrows(InvalidExpressionException.class, () -> Template.compile(template, scope)).problems();
    }

    // ---- values and their types ----------------------------------------------------------------------------------

    @Test
    void anExactPlaceholderKeepsTheValuesType() {
        JsonNode out = eval("{'id': '${{ input.orderId }}', 'cents': '${{ input.cents }}', 'rate': '${{ input.rate }}',"
                + " 'express': '${{ input.express }}', 'note': '${{ input.note }}', 'first': '${{ input.lines[0] }}',"
                + " 'skus': '${{ input.lines.map(l, l.sku) }}', 'sum': '${{ input.lines[0].n + input.lines[1].n }}',"
                + " 'half': '${{ double(input.cents) / 2.0 }}', 'whole': '${{ double(input.cents) }}', 'nothing': '${{ null }}'}",
                scope());
        assertEquals(json("{'id': 'o-1', 'cents': 1250, 'rate': 0.5, 'express': true, 'note': null,"
                + " 'first': {'sku': 'A', 'n': 2}, 'skus': ['A', 'B'], 'sum': 3, 'half': 625.0, 'whole': 1250.0, 'nothing': null}"), out);
        assertTrue(out.get("cents").isIntegralNumber());
        assertTrue(out.get("whole").isDouble(), "an integral double stays a double: " + out.get("whole"));
        assertTrue(out.get("express").isBoolean());
        assertTrue(out.get("note").isNull() && out.get("nothing").isNull());
    }

    @Test
    void aValuePassedThroughIsTheBindingsOwnNodeNotACopy() {
        Bindings bindings = bindings();
        JsonNode out = Template.compile(json("{'all': '${{ input }}', 'line': '${{ input.lines[1] }}'}"), scope()).evaluate(bindings);
        assertSame(bindings.input(), out.get("all"));
        assertSame(bindings.input().get("lines").get(1), out.get("line"));
    }

    @Test
    void celValuesWithoutAJsonTypeBecomeText() {
        JsonNode out = Template.compile(json("{'at': '${{ timestamp(\\\"2024-01-01T00:00:00Z\\\") + duration(\\\"90s\\\") }}',"
                + " 'wait': '${{ duration(\\\"90s\\\") }}', 'bytes': '${{ b\\\"abc\\\" }}', 'unsigned': '${{ 5u }}',"
                + " 'map': '${{ {1: true} }}'}").deepCopy(), scope()).evaluate(bindings());
        assertEquals(json("{'at': '2024-01-01T00:01:30Z', 'wait': 'PT1M30S', 'bytes': 'YWJj', 'unsigned': 5, 'map': {'1': true}}"), out);
    }

    @Test
    void placeholdersInsideTextAreInterpolated() {
        JsonNode out = eval("'order ${{ input.orderId }}: ${{input.cents}} cents, express=${{ input.express }},"
                + " rate=${{ input.rate }}, note=${{ input.note }}, line=${{ input.lines[1] }}, skus=${{ input.lines.map(l, l.sku) }}'",
                scope());
        assertEquals("order o-1: 1250 cents, express=true, rate=0.5, note=null, line={\"sku\":\"B\",\"n\":1},"
                + " skus=[\"A\",\"B\"]", out.textValue());
        assertEquals("http://payments/refund/o-1", eval("'http://payments/refund/${{ input.orderId }}'", scope()).textValue());
        assertEquals(" o-1", evalText(" ${{ input.orderId }}", scope()).textValue(), "a space outside the braces makes it text");
    }

    @Test
    void aMapLiteralMayEndInDoubleBracesAndStringsMayHoldThem() {
        assertEquals(json("{'a': {'b': 1250}}"), evalText("${{ {'a': {'b': input.cents}} }}", scope()));
        assertEquals("x}}y and o-1", evalText("${{ 'x}}y' }} and ${{ input.orderId }}", scope()).textValue());
        assertEquals("{\"k\":\"}}\"}!", evalText("${{ {\"k\": \"}}\"} }}!", scope()).textValue());
    }

    @Test
    void nestedTemplatesAreEvaluatedWhereTheyStandAndStaticPartsAreKept() {
        JsonNode template = json("{'order': {'id': '${{ input.orderId }}', 'lines': ['${{ input.lines[0].sku }}', 'fixed',"
                + " {'n': '${{ input.lines[1].n }}', 'k': 'v'}]}, 'static': {'a': [1, 2]}, 'n': 7}");
        JsonNode out = Template.compile(template, scope()).evaluate(bindings());
        assertEquals(json("{'order': {'id': 'o-1', 'lines': ['A', 'fixed', {'n': 1, 'k': 'v'}]}, 'static': {'a': [1, 2]}, 'n': 7}"), out);
        assertSame(template.get("static"), out.get("static"), "a subtree without placeholders is the template's own");
    }

    @Test
    void everyFieldOfADependencyIsReadable() {
        JsonNode out = eval("{'output': '${{ nodes.charge.output }}', 'status': '${{ nodes.charge.output.status }}',"
                + " 'state': '${{ nodes.charge.state }}', 'error': '${{ nodes.charge.error }}', 'attempts': '${{ nodes.charge.attempts }}',"
                + " 'noError': '${{ nodes.ship.error }}', 'indexed': '${{ nodes[\\\"ship\\\"].output.tracking }}',"
                + " 'parcels': '${{ size(nodes.ship.output.parcels) }}', 'noOutput': '${{ nodes.pending.output }}',"
                + " 'failed': '${{ nodes.charge.state == \\\"FAILED\\\" }}', 'has': '${{ has(nodes.charge.output.chargeId) }}'}",
                scope("charge", "ship", "pending"));
        assertEquals(json("{'output': {'status': 'declined'}, 'status': 'declined', 'state': 'FAILED', 'error': 'card declined',"
                + " 'attempts': 2, 'noError': null, 'indexed': 'T-9', 'parcels': 2, 'noOutput': null, 'failed': true, 'has': false}"), out);
    }

    @Test
    void theRunIsReadable() {
        assertEquals(json("{'id': '0b9c7e1e-7a4e-4d0e-9d7b-3f1a2b3c4d5e', 'workflow': 'order', 'revision': 3,"
                + " 'key': 'order/3/0b9c7e1e-7a4e-4d0e-9d7b-3f1a2b3c4d5e'}"),
                eval("{'id': '${{ run.id }}', 'workflow': '${{ run.workflow }}', 'revision': '${{ run.revision }}',"
                        + " 'key': '${{ run.workflow }}/${{ run.revision }}/${{ run.id }}'}", scope()));
    }

    @Test
    void mapsComeOutInADeterministicOrder() {
        assertEquals("{\"id\":\"0b9c7e1e-7a4e-4d0e-9d7b-3f1a2b3c4d5e\",\"workflow\":\"order\",\"revision\":3}",
                evalText("${{ run }}", scope()).toString());
        assertEquals("{\"output\":{\"status\":\"declined\"},\"state\":\"FAILED\",\"error\":\"card declined\",\"attempts\":2}",
                evalText("${{ nodes.charge }}", scope("charge")).toString());
        assertEquals("{\"z\":1,\"a\":2,\"m\":3}", evalText("${{ {'z': 1, 'a': 2, 'm': 3} }}", scope()).toString());
    }

    @Test
    void itemAndIndexExistInAFanOut() {
        Template template = Template.compile(json("{'sku': '${{ item.sku }}', 'n': '${{ index }}', 'label': '${{ index + 1 }}. ${{ item.sku }}',"
                + " 'order': '${{ input.orderId }}'}"), fanOut());
        Bindings bindings = bindings();
        List<JsonNode> outs = new ArrayList<>();
        for (int i = 0; i < bindings.input().get("lines").size(); i++) {
            outs.add(template.evaluate(bindings.forItem(bindings.input().get("lines").get(i), i)));
        }
        assertEquals(List.of(json("{'sku': 'A', 'n': 0, 'label': '1. A', 'order': 'o-1'}"),
                json("{'sku': 'B', 'n': 1, 'label': '2. B', 'order': 'o-1'}")), outs);
    }

    // ---- refused when saved --------------------------------------------------------------------------------------

    @Test
    void itemAndIndexAreRefusedOutsideAFanOut() {
        List<ExpressionProblem> problems = problems(json("{'sku': '${{ item.sku }}', 'lines': [0, 'n=${{ index }}']}"), scope());
        assertEquals(2, problems.size(), problems.toString());
        assertEquals("sku", problems.get(0).path());
        assertEquals("item.sku", problems.get(0).expression());
        assertEquals("uses 'item', which exists only in the input of a node with forEach", problems.get(0).message());
        assertEquals("lines[1]", problems.get(1).path());
        assertTrue(problems.get(1).message().contains("'index'"), problems.get(1).message());
    }

    @Test
    void readingANodeOutsideTheDependenciesIsRefusedInEitherForm() {
        List<ExpressionProblem> problems = problems(json("{'a': {'b': ['x', '${{ nodes.ship.output }}']},"
                + " 'c': 'id ${{ nodes[\\\"receipt\\\"].output.id }}', 'd': '${{ nodes.charge.state }}'}"), scope("charge", "ack"));
        assertEquals(2, problems.size(), problems.toString());
        assertEquals(new ExpressionProblem("a.b[1]", "nodes.ship.output",
                "reads node 'ship', which is not among this node's dependencies (direct or transitive): ack, charge"), problems.get(0));
        assertEquals("c", problems.get(1).path());
        assertTrue(problems.get(1).message().startsWith("reads node 'receipt', which is not among"), problems.get(1).message());
        assertEquals("reads node 'x', which is not among this node's dependencies (direct or transitive): it has none",
                problems(TextNode.valueOf("${{ has(nodes.x) }}"), scope()).get(0).message());
    }

    @Test
    void nodesAsAWholeOrByAComputedKeyIsRefused() {
        List<ExpressionProblem> problems = problems(json("['${{ nodes[input.which].output }}', '${{ size(nodes) }}',"
                + " '${{ nodes.charge.outptu }}']"), scope("charge"));
        assertEquals(3, problems.size(), problems.toString());
        assertTrue(problems.get(0).message().contains("computed key"), problems.get(0).message());
        assertEquals("[0]", problems.get(0).path());
        assertTrue(problems.get(1).message().contains("'nodes' as a whole"), problems.get(1).message());
        assertEquals("reads nodes.charge.outptu, but a node has only output, state, error and attempts", problems.get(2).message());
    }

    @Test
    void aComprehensionVariableMayShadowAVariable() {
        assertEquals(json("[1, 2]"), evalText("${{ [1, 2].map(nodes, nodes) }}", scope()));
        assertEquals(json("['A', 'B']"), evalText("${{ input.lines.map(item, item.sku) }}", scope()));
    }

    @Test
    void aSyntaxErrorIsAProblemWithItsPlace() {
        List<ExpressionProblem> problems = problems(json("{'n': '${{ size(input.lines }}'}"), scope());
        assertEquals(1, problems.size(), problems.toString());
        assertEquals("n", problems.get(0).path());
        assertEquals("size(input.lines", problems.get(0).expression());
        assertTrue(problems.get(0).message().startsWith("does not compile: ") && problems.get(0).message().contains("column"),
                problems.get(0).message());
    }

    @Test
    void everyProblemIsCollectedWithItsPath() {
        JsonNode template = json("{'a': '${{ item }}', 'b': {'c': ['${{ 1 + }}', 'ok ${{ input.x }}', '${{ nodes.far.output }}']},"
                + " 'd': 'open ${{ input.x', 'e': '${{ }}', 'f': '${{ input.ok }}'}");
        List<ExpressionProblem> problems = problems(template, scope());
        assertEquals(List.of("a", "b.c[0]", "b.c[2]", "d", "e"), problems.stream().map(ExpressionProblem::path).toList(),
                problems.toString());
        assertEquals("'${{' at character 6 has no closing '}}'", problems.get(3).message());
        assertEquals("the expression is empty", problems.get(4).message());
        InvalidExpressionException e = assertThrows(InvalidExpressionException.class, () -> Template.compile(template, scope()));
        assertTrue(e.getMessage().startsWith("a: uses 'item'"), e.getMessage());
    }

    @Test
    void anOverlongExpressionIsRefused() {
        String source = "input.cents" + " + 1".repeat(1100);
        List<ExpressionProblem> problems = problems(TextNode.valueOf("${{ " + source + " }}"), scope());
        assertEquals("the expression is " + source.length() + " characters long; the limit is 4096", problems.get(0).message());
    }

    // ---- static templates ----------------------------------------------------------------------------------------

    @Test
    void aTemplateWithoutPlaceholdersIsItself() {
        JsonNode source = json("{'a': [1, {'b': 'text with $ and {{ braces }}'}], 'c': null}");
        Template template = Template.compile(source, scope());
        assertTrue(template.isStatic());
        assertSame(source, template.evaluate(bindings()));
        assertSame(source, template.source());
        assertEquals(Set.of(), template.nodesRead());
        Template none = Template.compile(null, scope());
        assertTrue(none.isStatic());
        assertNull(none.evaluate(bindings()));
        assertNull(none.source());
        assertFalse(Template.compile(json("['${{ 1 }}']"), scope()).isStatic());
    }

    // ---- what it reads -------------------------------------------------------------------------------------------

    @Test
    void nodesReadNamesEveryNodeAndOnlyThoseAreAskedFor() {
        Template template = Template.compile(json("{'a': '${{ nodes.charge.output }}', 'b': ['x ${{ nodes[\\\"ship\\\"].state }}'],"
                + " 'c': '${{ has(nodes.pending.output) && input.express }}'}"), scope("charge", "ship", "pending", "other"));
        assertEquals(Set.of("charge", "ship", "pending"), template.nodesRead());
        Bindings full = bindings();
        List<String> asked = new ArrayList<>();
        Bindings counting = new Bindings(full.input(), id -> {
            asked.add(id);
            return full.nodes().apply(id);
        }, full.run(), null, -1);
        template.evaluate(counting);
        assertEquals(List.of("charge", "pending", "ship"), asked.stream().sorted().toList(), "each node asked for once, no other");
        asked.clear();
        Template.compile(json("{'a': '${{ input.orderId }}'}"), scope("charge")).evaluate(counting);
        assertEquals(List.of(), asked);
    }

    // ---- failing at run time -------------------------------------------------------------------------------------

    @Test
    void aMissingKeyNamesTheExpressionAndWhatItMet() {
        Template template = Template.compile(json("{'charge': '${{ nodes.charge.output.chargeId }}'}"), scope("charge"));
        EvaluationException e = assertThrows(EvaluationException.class, () -> template.evaluate(bindings()));
        assertEquals("expression 'nodes.charge.output.chargeId' failed: no such key: chargeId"
                + " (nodes.charge.output was {\"status\":\"declined\"})", e.getMessage());
    }

    @Test
    void aMissingNodeOrIndexOrAWrongTypeFailsTheEvaluationOnly() {
        Bindings noNodes = Bindings.of(bindings().input(), Map.of(), Json.RUN);
        EvaluationException missing = assertThrows(EvaluationException.class,
                () -> Template.compile(TextNode.valueOf("${{ nodes.charge.state }}"), scope("charge")).evaluate(noNodes));
        assertTrue(missing.getMessage().startsWith("expression 'nodes.charge.state' failed: no such key: charge"), missing.getMessage());
        EvaluationException wrongType = assertThrows(EvaluationException.class,
                () -> evalText("id-${{ input.orderId + 1 }}", scope()));
        assertTrue(wrongType.getMessage().startsWith("expression 'input.orderId + 1' failed: no matching overload"), wrongType.getMessage());
        assertTrue(wrongType.getMessage().contains("input.orderId was \"o-1\""), wrongType.getMessage());
        EvaluationException zero = assertThrows(EvaluationException.class, () -> evalText("${{ input.cents / 0 }}", scope()));
        assertTrue(zero.getMessage().contains("by zero"), zero.getMessage());
        EvaluationException outOfRange = assertThrows(EvaluationException.class, () -> evalText("${{ input.lines[5] }}", scope()));
        assertTrue(outOfRange.getMessage().startsWith("expression 'input.lines[5]' failed: "), outOfRange.getMessage());
        EvaluationException onNull = assertThrows(EvaluationException.class, () -> evalText("${{ input.note.x }}", scope()));
        assertTrue(onNull.getMessage().startsWith("expression 'input.note.x' failed: "), onNull.getMessage());
    }

    @Test
    void aFailureOfTheBindingsIsAnEvaluationException() {
        Bindings broken = new Bindings(bindings().input(), id -> {
            throw new IllegalStateException("the snapshot lost " + id);
        }, Json.RUN, null, -1);
        EvaluationException e = assertThrows(EvaluationException.class,
                () -> Template.compile(TextNode.valueOf("${{ nodes.charge.state }}"), scope("charge")).evaluate(broken));
        assertTrue(e.getMessage().contains("the snapshot lost charge"), e.getMessage());
    }

    @Test
    void theIterationLimitStopsARunawayEvaluation() {
        String list = "[" + "1, ".repeat(199) + "1]";
        EvaluationException e = assertThrows(EvaluationException.class,
                () -> evalText("${{ " + list + ".map(a, " + list + ".map(b, b)) }}", scope()));
        assertTrue(e.getMessage().contains("limit of 10000 loop iterations"), e.getMessage());
    }

    @Test
    void theResultSizeIsBounded() {
        Bindings big = Bindings.of(json("{'text': '" + "x".repeat(10_000) + "'}"), Map.of(), Json.RUN);
        String list = "[" + "1, ".repeat(199) + "1]";
        Template whole = Template.compile(TextNode.valueOf("${{ " + list + ".map(a, input.text) }}"), scope());
        EvaluationException e = assertThrows(EvaluationException.class, () -> whole.evaluate(big));
        assertTrue(e.getMessage().contains("larger than the limit of 1048576 characters"), e.getMessage());
        // The same bound holds across the placeholders of one template, and for a value passed through.
        StringBuilder many = new StringBuilder("[");
        for (int i = 0; i < 120; i++) {
            many.append(i == 0 ? "" : ",").append("\"${{ input }}\"");
        }
        Template passedThrough = Template.compile(json(many + "]"), scope());
        assertThrows(EvaluationException.class, () -> passedThrough.evaluate(big));
        Template interpolated = Template.compile(json(many.toString().replace("${{ input }}", "t ${{ input.text }}") + "]"), scope());
        assertThrows(EvaluationException.class, () -> interpolated.evaluate(big));
    }
}
