package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RuleMatcherTest {

    /** The default ductor.queue.tier-weights. */
    private static final java.util.List<String> TIERS = java.util.List.of("interactive", "standard", "bulk");

    private static final ObjectMapper MAPPER = new ObjectMapper();

    static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static Rule rule(String body) {
        return RuleValidator.parse(TIERS, "r", json(body));
    }

    private static Rule startRule(String on, String match) {
        return rule("{\"on\": \"" + on + "\", \"match\": " + match + ", \"start\": {\"workflow\": \"wf\"}}");
    }

    @Test
    void theEventTypeMustEqualOnExactly() {
        Rule rule = startRule("order.created", "{}");
        assertTrue(RuleMatcher.matches(rule, "order.created", json("{}")));
        assertFalse(RuleMatcher.matches(rule, "order.Created", json("{}")));
        assertFalse(RuleMatcher.matches(rule, "order.created.v2", json("{}")));
    }

    @Test
    void anEmptyMatchMatchesEveryEventOfTheTypeEvenWithoutPayload() {
        Rule rule = startRule("t", "{}");
        assertTrue(RuleMatcher.matches(rule, "t", null));
        assertTrue(RuleMatcher.matches(rule, "t", json("[1, 2]")));
        assertTrue(RuleMatcher.matches(rule, "t", json("{\"anything\": true}")));
    }

    @Test
    void everyConditionMustHold() {
        Rule rule = startRule("t", "{\"country\": \"DE\", \"customer.tier\": \"gold\"}");
        assertTrue(RuleMatcher.matches(rule, "t", json("{\"country\": \"DE\", \"customer\": {\"tier\": \"gold\", \"id\": 1}}")));
        assertFalse(RuleMatcher.matches(rule, "t", json("{\"country\": \"DE\", \"customer\": {\"tier\": \"silver\"}}")));
        assertFalse(RuleMatcher.matches(rule, "t", json("{\"country\": \"FR\", \"customer\": {\"tier\": \"gold\"}}")));
        assertFalse(RuleMatcher.matches(rule, "t", json("{\"country\": \"DE\"}")));
        assertFalse(RuleMatcher.matches(rule, "t", null));
    }

    @Test
    void digitSegmentsIndexArrays() {
        Rule rule = startRule("t", "{\"items.1.sku\": \"B\"}");
        assertTrue(RuleMatcher.matches(rule, "t", json("{\"items\": [{\"sku\": \"A\"}, {\"sku\": \"B\"}]}")));
        assertFalse(RuleMatcher.matches(rule, "t", json("{\"items\": [{\"sku\": \"B\"}]}")));
        assertFalse(RuleMatcher.matches(rule, "t", json("{\"items\": {\"1\": {\"sku\": \"C\"}}}")));
        assertTrue(RuleMatcher.matches(rule, "t", json("{\"items\": {\"1\": {\"sku\": \"B\"}}}")), "on an object a digit segment is a field name");
    }

    @Test
    void stringsCompareExactlyAndDoNotEqualNumbers() {
        Rule rule = startRule("t", "{\"id\": \"42\"}");
        assertTrue(RuleMatcher.matches(rule, "t", json("{\"id\": \"42\"}")));
        assertFalse(RuleMatcher.matches(rule, "t", json("{\"id\": 42}")));
        assertFalse(RuleMatcher.matches(rule, "t", json("{\"id\": \"42 \"}")));
    }

    @Test
    void numbersCompareByValue() {
        Rule rule = startRule("t", "{\"amount\": 10}");
        assertTrue(RuleMatcher.matches(rule, "t", json("{\"amount\": 10}")));
        assertTrue(RuleMatcher.matches(rule, "t", json("{\"amount\": 10.0}")));
        assertTrue(RuleMatcher.matches(rule, "t", json("{\"amount\": 1e1}")));
        assertFalse(RuleMatcher.matches(rule, "t", json("{\"amount\": 10.5}")));
    }

    @Test
    void nullMatchesOnlyAnExplicitNullAndAMissingPathNeverMatches() {
        Rule rule = startRule("t", "{\"cancelledAt\": null}");
        assertTrue(RuleMatcher.matches(rule, "t", json("{\"cancelledAt\": null}")));
        assertFalse(RuleMatcher.matches(rule, "t", json("{}")));
        assertFalse(RuleMatcher.matches(rule, "t", json("{\"cancelledAt\": \"2024-01-01\"}")));
    }

    @Test
    void booleansObjectsAndArraysCompareDeeply() {
        assertTrue(RuleMatcher.matches(startRule("t", "{\"vip\": true}"), "t", json("{\"vip\": true}")));
        assertFalse(RuleMatcher.matches(startRule("t", "{\"vip\": true}"), "t", json("{\"vip\": \"true\"}")));
        Rule object = startRule("t", "{\"address\": {\"city\": \"Berlin\", \"zip\": 10115}}");
        assertTrue(RuleMatcher.matches(object, "t", json("{\"address\": {\"zip\": 10115.0, \"city\": \"Berlin\"}}")),
                "field order does not matter");
        assertFalse(RuleMatcher.matches(object, "t", json("{\"address\": {\"city\": \"Berlin\", \"zip\": 10115, \"x\": 1}}")),
                "an extra field makes a different object");
        Rule array = startRule("t", "{\"tags\": [\"a\", \"b\"]}");
        assertTrue(RuleMatcher.matches(array, "t", json("{\"tags\": [\"a\", \"b\"]}")));
        assertFalse(RuleMatcher.matches(array, "t", json("{\"tags\": [\"b\", \"a\"]}")), "array order matters");
        assertFalse(RuleMatcher.matches(array, "t", json("{\"tags\": [\"a\"]}")));
    }

    @Test
    void aDisabledRuleMatchesNothing() {
        Rule rule = rule("{\"on\": \"t\", \"start\": {\"workflow\": \"wf\"}, \"enabled\": false}");
        assertFalse(RuleMatcher.matches(rule, "t", json("{}")));
    }

    @Test
    void signalRulesMatchTheSameWay() {
        Rule rule = rule("{\"on\": \"payment.received\", \"match\": {\"status\": \"ok\"}, \"signal\": {\"name\": \"paid\"}}");
        assertTrue(RuleMatcher.matches(rule, "payment.received", json("{\"status\": \"ok\"}")));
        assertFalse(RuleMatcher.matches(rule, "payment.received", json("{\"status\": \"failed\"}")));
    }
}
