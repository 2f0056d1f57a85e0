package dev.ductor.run.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.workflow.model.DefinitionParser;
import dev.ductor.workflow.model.WorkflowDefinition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class StuckRunPolicyTest {

    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");

    private static RunSnapshot started(String nodes) throws Exception {
        WorkflowDefinition definition = new DefinitionParser(h -> true)
                .parse("w", new ObjectMapper().readTree("{\"nodes\":" + nodes + "}"));
        RunSnapshot fresh = RunSnapshot.fresh(UUID.randomUUID(), definition, null);
        TickResult first = Tick.tick(fresh, List.of(), NOW);
        return new RunSnapshot(fresh.runId(), definition, first.status(), first.nodes(), first.lastSeq(), 1, null);
    }

    @Test
    void aRunningTaskWithoutItsQueueRowIsStuck() throws Exception {
        assertTrue(StuckRunPolicy.isStuck(started("[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"}]")));
    }

    @Test
    void aRunWaitingForASignalIsNotStuckHoweverLongItWaits() throws Exception {
        assertFalse(StuckRunPolicy.isStuck(started("[{\"id\":\"s\",\"type\":\"signal\",\"signal\":\"go\"},"
                + "{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"}]")));
    }

    @Test
    void aWaitingTimerWithoutItsQueueRowIsStuck() throws Exception {
        assertTrue(StuckRunPolicy.isStuck(started("[{\"id\":\"t\",\"type\":\"timer\",\"duration\":\"PT1H\"}]")));
    }

    @Test
    void aFinishedRunIsNeverStuck() throws Exception {
        RunSnapshot running = started("[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"}]");
        TickResult cancelled = Tick.tick(running, List.of(new Input.CancelRequested(1, "test")), NOW);
        assertFalse(StuckRunPolicy.isStuck(new RunSnapshot(running.runId(), running.definition(), cancelled.status(),
                cancelled.nodes(), cancelled.lastSeq(), 2, null)));
    }

    private static final String CHAIN = "[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"},"
            + "{\"id\":\"b\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"a\"]}]";

    @Test
    void aRunWithAResultWaitingInItsInboxIsWokenNotFailed() throws Exception {
        RunSnapshot run = started(CHAIN);
        List<Input> inbox = List.of(new Input.TaskCompleted(7, "a", 1, null));
        assertEquals(StuckRunPolicy.Verdict.WAKE, StuckRunPolicy.verdict(run, inbox, NOW));
    }

    @Test
    void aRunWithANodeReadyToStartIsWoken() throws Exception {
        RunSnapshot run = started(CHAIN);
        Map<String, NodeState> nodes = new LinkedHashMap<>(run.nodes());
        nodes.put("a", new NodeState(NodeStatus.SUCCEEDED, 1, null, null)); // its successor was never started
        RunSnapshot lostItsTick = new RunSnapshot(run.runId(), run.definition(), run.status(), nodes, run.lastSeq(), 2, null);
        assertEquals(StuckRunPolicy.Verdict.WAKE, StuckRunPolicy.verdict(lostItsTick, List.of(), NOW));
    }

    @Test
    void aRunNothingCanAdvanceIsFailedEvenWithAnEarlySignalKeptInItsInbox() throws Exception {
        RunSnapshot run = started("[{\"id\":\"a\",\"type\":\"task\",\"handler\":\"noop\"},"
                + "{\"id\":\"s\",\"type\":\"signal\",\"signal\":\"go\",\"dependsOn\":[\"a\"]}]");
        List<Input> inbox = List.of(new Input.SignalReceived(3, "go", null)); // kept for s, which a never lets start
        assertEquals(StuckRunPolicy.Verdict.FAIL, StuckRunPolicy.verdict(run, inbox, NOW));
    }

    @Test
    void aRunParkedOnASignalIsLeftAlone() throws Exception {
        RunSnapshot run = started("[{\"id\":\"s\",\"type\":\"signal\",\"signal\":\"go\"}]");
        assertEquals(StuckRunPolicy.Verdict.LEAVE, StuckRunPolicy.verdict(run, List.of(), NOW));
    }
}
