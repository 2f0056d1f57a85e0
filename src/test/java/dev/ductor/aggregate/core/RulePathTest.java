package dev.ductor.aggregate.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static dev.ductor.aggregate.core.RuleMatcherTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RulePathTest {

    @Test
    void emptySegmentsAndOverlongPathsAreRefused() {
        assertNotNull(RulePath.problem(""));
        assertNotNull(RulePath.problem(".a"));
        assertNotNull(RulePath.problem("a."));
        assertNotNull(RulePath.problem("a..b"));
        assertNotNull(RulePath.problem("a".repeat(RulePath.MAX_LENGTH + 1)));
        assertNull(RulePath.problem("a"));
        assertNull(RulePath.problem("a.b.0.c"));
        assertNull(RulePath.problem("with space.and-dash"));
    }

    @Test
    void resolvesFieldsAndArrayIndexes() {
        var root = json("{\"a\": {\"b\": [10, {\"c\": \"x\"}]}, \"n\": null}");
        assertEquals(json("10"), RulePath.resolve(root, "a.b.0"));
        assertEquals(json("\"x\""), RulePath.resolve(root, "a.b.1.c"));
        assertTrue(RulePath.resolve(root, "n").isNull(), "an explicit null is a value");
    }

    @Test
    void pathsThatLeadNowhereAreMissing() {
        var root = json("{\"a\": {\"b\": [10]}, \"s\": \"text\"}");
        assertNull(RulePath.resolve(root, "x"));
        assertNull(RulePath.resolve(root, "a.b.1"));
        assertNull(RulePath.resolve(root, "a.b.first"));
        assertNull(RulePath.resolve(root, "a.b.-1"));
        assertNull(RulePath.resolve(root, "s.length"));
        assertNull(RulePath.resolve(root, "a.b.0.deeper"));
        assertNull(RulePath.resolve(json("[1]"), "99999999999"));
    }
}
