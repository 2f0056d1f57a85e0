package dev.ductor.aggregate.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static dev.ductor.aggregate.core.RuleMatcherTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RuleStateTest {

    /** The default ductor.queue.tier-weights. */
    private static final java.util.List<String> TIERS = java.util.List.of("interactive", "standard", "bulk");

    private static final Instant T1 = Instant.parse("2024-05-01T10:00:00Z");
    private static final Instant T2 = Instant.parse("2024-05-02T10:00:00Z");

    private static Rule rule(String body) {
        return RuleValidator.parse(TIERS, "r", json(body));
    }

    private static AggregateEvent stored(long version, NewEvent event, String by, Instant at) {
        return new AggregateEvent(version, event.type(), event.payload(), by, at);
    }

    @Test
    void noEventsIsARuleThatDoesNotExistAtVersionZero() {
        RuleState state = RuleState.fold("r", List.of());
        assertFalse(state.exists());
        assertEquals(0, state.version());
        assertNull(state.rule());
    }

    @Test
    void theLastDefinitionWinsAndTheVersionCountsEvents() {
        Rule first = rule("{\"on\": \"a\", \"start\": {\"workflow\": \"wf\"}}");
        Rule second = rule("{\"on\": \"b\", \"signal\": {\"name\": \"s\"}, \"enabled\": false}");
        RuleState state = RuleState.fold("r", List.of(
                stored(1, RuleState.defined(first), "ada", T1),
                stored(2, RuleState.defined(second), "bob", T2)));
        assertTrue(state.exists());
        assertEquals(2, state.version());
        assertEquals(second, state.rule());
        assertEquals(T1, state.createdAt());
        assertEquals(T2, state.updatedAt());
        assertEquals("bob", state.updatedBy());
    }

    @Test
    void theDefinedEventCarriesTheWholeNormalisedRule() {
        Rule rule = rule("{\"on\": \"a\", \"match\": {\"x\": 1}, \"start\": {\"workflow\": \"wf\", \"input\": {\"id\": \"$.id\"}}}");
        NewEvent event = RuleState.defined(rule);
        assertEquals(RuleState.DEFINED, event.type());
        assertEquals(rule.toJson(), event.payload());
        assertEquals(rule, RuleState.initial("r").apply(stored(1, event, "ada", T1)).rule());
    }

    @Test
    void aGapOrAnUnknownEventIsRefused() {
        NewEvent event = RuleState.defined(rule("{\"on\": \"a\", \"start\": {\"workflow\": \"wf\"}}"));
        assertThrows(IllegalStateException.class, () -> RuleState.fold("r", List.of(stored(2, event, "ada", T1))));
        assertThrows(IllegalStateException.class, () -> RuleState.fold("r", List.of(
                new AggregateEvent(1, "RuleRenamed", json("{}"), "ada", T1))));
    }
}
