package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class PoolStateTest {

    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    /** Numbers the events 1, 2, 3 ... as the store does, a second apart. */
    static List<AggregateEvent> stream(NewEvent... events) {
        List<AggregateEvent> stored = new ArrayList<>();
        for (int i = 0; i < events.length; i++) {
            stored.add(new AggregateEvent(i + 1, events[i].type(), events[i].payload(), "dev-admin", T0.plusSeconds(i)));
        }
        return stored;
    }

    @Test
    void anEmptyStreamIsAnUndefinedPoolAtVersionZero() {
        PoolState state = PoolState.fold(List.of());

        assertSame(PoolState.UNDEFINED, state);
        assertFalse(state.defined());
        assertEquals(0, state.version());
        assertNull(state.createdAt());
    }

    @Test
    void poolDefinedSetsCapacityAndPause() {
        PoolState state = PoolState.fold(stream(PoolEvents.defined(3, true)));

        assertTrue(state.defined());
        assertEquals(3, state.capacity());
        assertTrue(state.paused());
        assertEquals(1, state.version());
        assertEquals(T0, state.createdAt());
        assertEquals(T0, state.updatedAt());
    }

    @Test
    void laterEventsChangeCapacityAndPauseAndCountTheVersion() {
        PoolState state = PoolState.fold(stream(
                PoolEvents.defined(3, false),
                PoolEvents.capacityChanged(3, 10),
                PoolEvents.paused(),
                PoolEvents.capacityChanged(10, 0),
                PoolEvents.resumed()));

        assertEquals(0, state.capacity());
        assertFalse(state.paused());
        assertEquals(5, state.version());
        assertEquals(T0, state.createdAt(), "created when defined");
        assertEquals(T0.plusSeconds(4), state.updatedAt(), "updated by the last event");
    }

    @Test
    void pausedThenPausedAgainStaysPaused() {
        PoolState state = PoolState.fold(stream(PoolEvents.defined(1, false), PoolEvents.paused(), PoolEvents.paused()));

        assertTrue(state.paused());
        assertEquals(3, state.version());
    }

    @Test
    void aStreamThatDoesNotStartWithPoolDefinedIsRefused() {
        assertThrows(IllegalStateException.class, () -> PoolState.fold(stream(PoolEvents.paused())));
        assertThrows(IllegalStateException.class, () -> PoolState.fold(stream(PoolEvents.capacityChanged(0, 2))));
    }

    @Test
    void aSecondPoolDefinedIsRefused() {
        assertThrows(IllegalStateException.class,
                () -> PoolState.fold(stream(PoolEvents.defined(1, false), PoolEvents.defined(2, false))));
    }

    @Test
    void aGapOrRepeatInTheVersionsIsRefused() {
        List<AggregateEvent> events = new ArrayList<>(stream(PoolEvents.defined(1, false)));
        NewEvent next = PoolEvents.capacityChanged(1, 2);
        events.add(new AggregateEvent(3, next.type(), next.payload(), "dev-admin", T0));
        assertThrows(IllegalStateException.class, () -> PoolState.fold(events));

        List<AggregateEvent> repeated = new ArrayList<>(stream(PoolEvents.defined(1, false)));
        repeated.add(new AggregateEvent(1, next.type(), next.payload(), "dev-admin", T0));
        assertThrows(IllegalStateException.class, () -> PoolState.fold(repeated));
    }

    @Test
    void anUnknownEventTypeIsRefusedRatherThanSkipped() {
        List<AggregateEvent> events = new ArrayList<>(stream(PoolEvents.defined(1, false)));
        events.add(new AggregateEvent(2, "PoolRenamed", PoolEvents.paused().payload(), "dev-admin", T0));

        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> PoolState.fold(events));
        assertTrue(refused.getMessage().contains("PoolRenamed"), refused.getMessage());
    }

    @Test
    void aPayloadWithoutItsFieldsIsRefused() {
        JsonNode empty = PoolEvents.paused().payload();
        List<AggregateEvent> events = List.of(new AggregateEvent(1, PoolEvents.DEFINED, empty, "dev-admin", T0));

        assertThrows(IllegalStateException.class, () -> PoolState.fold(events));
    }

    @Test
    void eventPayloadsCarryWhatTheEventsStreamShows() {
        assertEquals("{\"capacity\":3,\"paused\":false}", PoolEvents.defined(3, false).payload().toString());
        assertEquals("{\"from\":3,\"to\":5}", PoolEvents.capacityChanged(3, 5).payload().toString());
        assertEquals("{}", PoolEvents.paused().payload().toString());
        assertEquals("{}", PoolEvents.resumed().payload().toString());
    }
}
