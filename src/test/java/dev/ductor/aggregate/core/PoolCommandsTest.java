package dev.ductor.aggregate.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ductor.aggregate.core.PoolStateTest.stream;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class PoolCommandsTest {

    private static final PoolState OPEN_3 = PoolState.fold(stream(PoolEvents.defined(3, false)));
    private static final PoolState PAUSED_3 = PoolState.fold(stream(PoolEvents.defined(3, true)));

    private static List<String> types(List<NewEvent> events) {
        return events.stream().map(NewEvent::type).toList();
    }

    @Test
    void aNewPoolIsDefinedWithItsCapacityAndPause() {
        List<NewEvent> events = PoolCommands.decide(PoolState.UNDEFINED, 4, true);

        assertEquals(List.of(PoolEvents.DEFINED), types(events));
        assertEquals(4, events.get(0).payload().get("capacity").intValue());
        assertTrue(events.get(0).payload().get("paused").booleanValue());
    }

    @Test
    void aNewPoolMayStartWithCapacityZero() {
        assertEquals(List.of(PoolEvents.DEFINED), types(PoolCommands.decide(PoolState.UNDEFINED, 0, false)));
    }

    @Test
    void theSameSettingsAgainDecideNothing() {
        assertTrue(PoolCommands.decide(OPEN_3, 3, false).isEmpty());
        assertTrue(PoolCommands.decide(PAUSED_3, 3, true).isEmpty());
    }

    @Test
    void aNewCapacityIsOneEventWithFromAndTo() {
        List<NewEvent> events = PoolCommands.decide(OPEN_3, 7, false);

        assertEquals(List.of(PoolEvents.CAPACITY_CHANGED), types(events));
        assertEquals(3, events.get(0).payload().get("from").intValue());
        assertEquals(7, events.get(0).payload().get("to").intValue());
    }

    @Test
    void pausingAndResumingAreTheirOwnEvents() {
        assertEquals(List.of(PoolEvents.PAUSED), types(PoolCommands.decide(OPEN_3, 3, true)));
        assertEquals(List.of(PoolEvents.RESUMED), types(PoolCommands.decide(PAUSED_3, 3, false)));
    }

    @Test
    void changingBothDecidesBothInOrder() {
        assertEquals(List.of(PoolEvents.CAPACITY_CHANGED, PoolEvents.PAUSED), types(PoolCommands.decide(OPEN_3, 1, true)));
        assertEquals(List.of(PoolEvents.CAPACITY_CHANGED, PoolEvents.RESUMED), types(PoolCommands.decide(PAUSED_3, 9, false)));
    }

    @Test
    void theDecidedEventsFoldIntoTheWantedState() {
        PoolState state = PoolState.UNDEFINED;
        int[][] edits = {{5, 0}, {5, 1}, {2, 1}, {8, 0}, {8, 0}, {0, 1}};
        List<NewEvent> all = new java.util.ArrayList<>();
        for (int[] edit : edits) {
            all.addAll(PoolCommands.decide(state, edit[0], edit[1] == 1));
            state = PoolState.fold(stream(all.toArray(NewEvent[]::new)));
            assertEquals(edit[0], state.capacity());
            assertEquals(edit[1] == 1, state.paused());
        }
        assertEquals(all.size(), state.version(), "one version per event, none for the repeated edit");
        assertEquals(7, state.version());
    }

    @Test
    void aCapacityOutOfRangeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> PoolCommands.decide(PoolState.UNDEFINED, -1, false));
        assertThrows(IllegalArgumentException.class, () -> PoolCommands.decide(OPEN_3, PoolCommands.MAX_CAPACITY + 1, false));
        assertEquals(1, PoolCommands.decide(OPEN_3, PoolCommands.MAX_CAPACITY, false).size());
    }
}
