package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.ductor.aggregate.core.RuleMatcherTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RuleTemplateTest {

    private static final JsonNode PAYLOAD = json("{\"id\": 42, \"customer\": {\"name\": \"Ada\"}, \"items\": [{\"sku\": \"A\"}], \"key\": \"inner\"}");

    private static JsonNode render(String template) {
        return RuleTemplate.render(json(template), "order.created", "order-42", PAYLOAD);
    }

    @Test
    void aDollarAloneIsTheWholePayload() {
        assertEquals(PAYLOAD, render("\"$\""));
        assertEquals(json("{\"event\": " + PAYLOAD + "}"), render("{\"event\": \"$\"}"));
    }

    @Test
    void dollarDotPathsAreValuesOfThePayloadKeepingTheirType() {
        assertEquals(json("{\"order\": 42, \"who\": \"Ada\", \"first\": \"A\", \"customer\": {\"name\": \"Ada\"}}"),
                render("{\"order\": \"$.id\", \"who\": \"$.customer.name\", \"first\": \"$.items.0.sku\", \"customer\": \"$.customer\"}"));
    }

    @Test
    void theEventsKeyAndTypeHaveTheirOwnReferencesSoAPayloadFieldNamedKeyStaysReachable() {
        assertEquals(json("{\"k\": \"order-42\", \"t\": \"order.created\", \"inner\": \"inner\"}"),
                render("{\"k\": \"$key\", \"t\": \"$type\", \"inner\": \"$.key\"}"));
    }

    @Test
    void missingValuesBecomeNull() {
        assertEquals(json("{\"x\": null}"), render("{\"x\": \"$.nope.deeper\"}"));
        assertEquals(json("{\"k\": null, \"p\": null, \"v\": null}"),
                RuleTemplate.render(json("{\"k\": \"$key\", \"p\": \"$\", \"v\": \"$.id\"}"), "t", null, null));
    }

    @Test
    void everythingElseIsCopiedAsWritten() {
        assertEquals(json("{\"a\": [1, \"two\", true, null, {\"$.id\": \"costs $5\"}], \"b\": 2.5}"),
                render("{\"a\": [1, \"two\", true, null, {\"$.id\": \"costs $5\"}], \"b\": 2.5}"),
                "object keys and strings that merely contain $ are not references");
        assertEquals(json("[\"$.id\", \"$\", \"$key\"]"), render("[\"$$.id\", \"$$\", \"$$key\"]"), "$$ escapes");
        assertEquals(json("[42, \"$.id\"]"), render("[\"$.id\", \"$$.id\"]"));
    }

    @Test
    void renderingNeitherChangesTheTemplateNorSharesNodesWithThePayload() {
        JsonNode template = json("{\"c\": \"$.customer\", \"fixed\": {\"n\": 1}}");
        JsonNode before = template.deepCopy();
        JsonNode out = RuleTemplate.render(template, "t", "k", PAYLOAD);
        ((com.fasterxml.jackson.databind.node.ObjectNode) out.get("c")).put("name", "changed");
        ((com.fasterxml.jackson.databind.node.ObjectNode) out.get("fixed")).put("n", 2);
        assertEquals(before, template);
        assertEquals("Ada", PAYLOAD.at("/customer/name").asText());
    }

    @Test
    void unknownReferencesAreRefusedWithTheirPlace() {
        List<RuleViolation> violations = new ArrayList<>();
        RuleTemplate.validate(json("{\"a\": \"$id\", \"b\": [\"ok\", \"$.x..y\"], \"c\": \"$$fine\", \"d\": \"$.fine.0\"}"),
                "start.input", violations);
        assertEquals(2, violations.size(), violations::toString);
        assertEquals("start.input.a", violations.get(0).field());
        assertTrue(violations.get(0).message().contains("\"$$id\""), violations.get(0).message());
        assertEquals("start.input.b[1]", violations.get(1).field());
    }
}
