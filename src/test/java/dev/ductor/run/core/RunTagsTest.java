package dev.ductor.run.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RunTagsTest {

    @Test
    void tagsWithinTheLimitsPass() {
        assertNull(RunTags.check(null));
        assertNull(RunTags.check(Map.of()));
        assertNull(RunTags.check(Map.of("customer", "c-42", "Order.Id_2-b", "x:y z")));
        Map<String, String> sixteen = new HashMap<>();
        IntStream.range(0, 16).forEach(i -> sixteen.put("k" + i, "v"));
        assertNull(RunTags.check(sixteen));
        assertNull(RunTags.check(Map.of("k".repeat(64), "v".repeat(256))));
    }

    @Test
    void theFirstBadTagInKeyOrderIsNamed() {
        Map<String, String> seventeen = new HashMap<>();
        IntStream.range(0, 17).forEach(i -> seventeen.put("k" + i, "v"));
        assertNull(RunTags.check(seventeen).tag(), "too many is about the map, not one tag");
        assertEquals("a b", RunTags.check(Map.of("z z", "v", "a b", "v")).tag());
        assertEquals("k:v", RunTags.check(Map.of("k:v", "v")).tag());
        assertEquals("", RunTags.check(Map.of("", "v")).tag());
        assertEquals("k".repeat(65), RunTags.check(Map.of("k".repeat(65), "v")).tag());
        assertEquals("k", RunTags.check(Map.of("k", "")).tag());
        assertEquals("k", RunTags.check(Map.of("k", "v".repeat(257))).tag());
        Map<String, String> nullValue = new HashMap<>();
        nullValue.put("k", null);
        assertTrue(RunTags.check(nullValue).message().contains("not null"));
        String huge = "k".repeat(10_000);
        assertTrue(RunTags.check(Map.of(huge, "v")).tag().length() < 100, "a huge key is not echoed whole");
    }

    @Test
    void aFilterSplitsAtItsFirstColon() {
        assertEquals(new RunTags.Tag("customer", "c-42"), RunTags.parse("customer:c-42"));
        assertEquals(new RunTags.Tag("url", "https://x/y:z"), RunTags.parse("url:https://x/y:z"));
        for (String bad : new String[] {"customer", ":c-42", "customer:", "a b:c", null}) {
            assertThrows(RunTags.InvalidFilterException.class, () -> RunTags.parse(bad), bad);
        }
    }

    @Test
    void theStoredFormIsOneObjectWithSortedKeysAndNullForNone() {
        assertNull(RunTags.json(null));
        assertNull(RunTags.json(Map.of()));
        assertEquals("{\"a\":\"1\",\"b\":\"x\\\"y\"}", RunTags.json(Map.of("b", "x\"y", "a", "1")));
        assertNull(RunTags.normalized(Map.of()));
        assertEquals("[a, b]", RunTags.normalized(Map.of("b", "2", "a", "1")).keySet().toString());
    }
}
