package dev.ductor.aggregate.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ductor.aggregate.core.RuleMatcherTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RuleValidatorTest {

    /** The default ductor.queue.tier-weights. */
    private static final java.util.List<String> TIERS = java.util.List.of("interactive", "standard", "bulk");

    private static List<RuleViolation> violations(String body) {
        return assertThrows(RuleViolationException.class, () -> RuleValidator.parse(TIERS, "r", json(body))).violations();
    }

    private static boolean names(List<RuleViolation> violations, String field) {
        return violations.stream().anyMatch(v -> field == null ? v.field() == null : field.equals(v.field()));
    }

    @Test
    void aStartRuleIsNormalisedWithItsDefaults() {
        Rule rule = RuleValidator.parse(TIERS, "r", json("{\"on\": \"order.created\", \"start\": {\"workflow\": \"order\"}}"));
        assertEquals("order.created", rule.on());
        assertTrue(rule.match().isEmpty());
        assertEquals("order", rule.start().workflow());
        assertEquals(json("\"$\""), rule.start().input(), "the whole payload by default");
        assertEquals("standard", rule.start().tier());
        assertNull(rule.signal());
        assertTrue(rule.enabled());
        assertEquals(json("{\"on\": \"order.created\", \"match\": {}, \"start\": {\"workflow\": \"order\", \"input\": \"$\","
                + " \"tier\": \"standard\"}, \"enabled\": true}"), rule.toJson());
    }

    @Test
    void aSignalRuleKeepsItsTemplateAndMatch() {
        Rule rule = RuleValidator.parse(TIERS, "r", json("{\"on\": \"paid\", \"match\": {\"a.b\": [1]}, "
                + "\"signal\": {\"name\": \"paid\", \"payload\": {\"amount\": \"$.amount\"}}, \"enabled\": false}"));
        assertEquals("paid", rule.signal().name());
        assertEquals(json("{\"amount\": \"$.amount\"}"), rule.signal().payload());
        assertEquals(json("[1]"), rule.match().get("a.b"));
        assertFalse(rule.enabled());
    }

    @Test
    void theStoredFormReadsBackToTheSameRule() {
        Rule rule = RuleValidator.parse(TIERS, "r", json("{\"on\": \"t\", \"match\": {\"x\": {\"y\": 1}}, "
                + "\"start\": {\"workflow\": \"wf\", \"input\": {\"k\": \"$key\"}, \"tier\": \"bulk\"}}"));
        assertEquals(rule, Rule.fromJson(rule.toJson()));
        Rule signal = RuleValidator.parse(TIERS, "r", json("{\"on\": \"t\", \"signal\": {\"name\": \"s\"}}"));
        assertEquals(signal, Rule.fromJson(signal.toJson()));
    }

    @Test
    void whatAGetReturnedMayBeSentBack() {
        Rule rule = RuleValidator.parse(TIERS, "r", json("{\"name\": \"r\", \"on\": \"t\", \"start\": {\"workflow\": \"wf\"}, "
                + "\"version\": 3, \"createdAt\": \"2024-01-01T00:00:00Z\", \"updatedAt\": \"x\", \"updatedBy\": \"ada\"}"));
        assertEquals("t", rule.on());
        assertTrue(names(violations("{\"name\": \"other\", \"on\": \"t\", \"start\": {\"workflow\": \"wf\"}}"), "name"));
    }

    @Test
    void exactlyOneActionIsRequired() {
        assertTrue(names(violations("{\"on\": \"t\"}"), null));
        assertTrue(names(violations("{\"on\": \"t\", \"start\": {\"workflow\": \"wf\"}, \"signal\": {\"name\": \"s\"}}"), null));
        assertTrue(names(violations("{\"on\": \"t\", \"start\": null, \"signal\": null}"), null));
    }

    @Test
    void everyViolationIsReportedAtOnceByField() {
        List<RuleViolation> found = violations("{\"on\": \"\", \"mach\": {}, \"match\": {\"a..b\": 1}, "
                + "\"start\": {\"workflow\": \"has space\", \"input\": \"$nope\", \"tier\": \"gold\", \"extra\": 1}, \"enabled\": \"yes\"}");
        for (String field : List.of("on", "mach", "match", "start.workflow", "start.input", "start.tier", "start.extra", "enabled")) {
            assertTrue(names(found, field), () -> field + " in " + found);
        }
    }

    @Test
    void shapesAreChecked() {
        assertTrue(names(assertThrows(RuleViolationException.class, () -> RuleValidator.parse(TIERS, "r", json("[]"))).violations(), null));
        assertTrue(names(assertThrows(RuleViolationException.class, () -> RuleValidator.parse(TIERS, "r", null)).violations(), null));
        assertTrue(names(violations("{\"on\": 5, \"start\": {\"workflow\": \"wf\"}}"), "on"));
        assertTrue(names(violations("{\"on\": \"t\", \"match\": [], \"start\": {\"workflow\": \"wf\"}}"), "match"));
        assertTrue(names(violations("{\"on\": \"t\", \"start\": \"wf\"}"), "start"));
        assertTrue(names(violations("{\"on\": \"t\", \"start\": {}}"), "start.workflow"));
        assertTrue(names(violations("{\"on\": \"t\", \"signal\": []}"), "signal"));
        assertTrue(names(violations("{\"on\": \"t\", \"signal\": {\"payload\": 1}}"), "signal.name"));
        assertTrue(names(violations("{\"on\": \"t\", \"signal\": {\"name\": \"s\", \"payload\": {\"x\": [\"$bad\"]}}}"), "signal.payload.x[0]"));
        assertTrue(names(violations("{\"on\": \"" + "t".repeat(201) + "\", \"signal\": {\"name\": \"s\"}}"), "on"));
    }

    @Test
    void whatPostgresCannotStoreIsRefusedBeforeItGetsThere() {
        assertTrue(names(violations("{\"on\": \"t\\u0000\", \"start\": {\"workflow\": \"wf\"}}"), null));
        assertTrue(names(violations("{\"on\": \"t\", \"match\": {\"a\\u0000\": 1}, \"start\": {\"workflow\": \"wf\"}}"), null));
        assertTrue(names(violations("{\"on\": \"t\", \"start\": {\"workflow\": \"wf\", \"input\": [1e400]}}"), null));
        assertNull(RuleValidator.unstorable(json("{\"a\": [1, \"x\", 1.5, 123456789012345678901234567890, {\"b\": null}]}")));
        assertNull(RuleValidator.unstorable(null));
    }

    @Test
    void ruleNamesAreASafeAlphabetWithoutColons() {
        assertTrue(RuleValidator.validName("order-created_v2.1"));
        assertFalse(RuleValidator.validName("a:b"), "a colon would make event:<key>:<rule> ambiguous");
        assertFalse(RuleValidator.validName(""));
        assertFalse(RuleValidator.validName("x".repeat(101)));
        assertFalse(RuleValidator.validName("with space"));
    }
}
