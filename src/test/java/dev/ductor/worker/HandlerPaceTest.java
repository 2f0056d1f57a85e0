package dev.ductor.worker;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class HandlerPaceTest {

    private static final long MS = 1_000_000;

    @Test
    void aHandlerNotSeenYetIsNotQuick() {
        assertFalse(new HandlerPace().isQuick("noop"));
    }

    @Test
    void quickStepsMakeAHandlerQuickAndAStretchOfSlowOnesUndoesIt() {
        HandlerPace pace = new HandlerPace();
        for (int i = 0; i < 20; i++) {
            pace.record("noop", MS / 10);
        }
        assertTrue(pace.isQuick("noop"));
        assertFalse(pace.isQuick("other"), "each handler is its own");

        pace.record("noop", 5 * MS);
        assertTrue(pace.isQuick("noop"), "one slow step among quick ones: ~0.6 ms on average");
        for (int i = 0; i < 5; i++) {
            pace.record("noop", 50 * MS);
        }
        assertFalse(pace.isQuick("noop"), "a run of slow steps");
        for (int i = 0; i < 60; i++) {
            pace.record("noop", MS / 10);
        }
        assertTrue(pace.isQuick("noop"), "quick again once its recent steps are");
    }

    @Test
    void aHandlerWhoseStepsTakeSecondsIsNeverQuick() {
        HandlerPace pace = new HandlerPace();
        pace.record("slow", 3_000 * MS);
        assertFalse(pace.isQuick("slow"));
        pace.record("slow", HandlerPace.QUICK_NANOS);
        assertFalse(pace.isQuick("slow"));
    }
}
