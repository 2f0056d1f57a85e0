package dev.ductor.run.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.run.core.Effect.DispatchTask;
import dev.ductor.run.core.Effect.ScheduleTimer;
import dev.ductor.workflow.model.DefinitionParser;
import dev.ductor.workflow.model.WorkflowDefinition;

import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Test fixture: definitions from JSON text, snapshots, inputs, and short views of a tick's result. */
final class Runs {

    static final ObjectMapper MAPPER = new ObjectMapper();
    static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    static final UUID RUN_ID = UUID.fromString("00000000-0000-0000-0000-0000000000aa");
    static final JsonNode RUN_INPUT = json("{\"order\": 42}");
    static final DefinitionParser PARSER = new DefinitionParser(
            h -> Set.of("noop", "echo", "sleep", "fail", "http").contains(h) || h.startsWith("ext:"));

    private Runs() {
    }

    static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A definition named {@code wf} from a JSON array of nodes. */
    static WorkflowDefinition definition(String nodesArray) {
        return PARSER.parse("wf", json("{\"name\": \"wf\", \"nodes\": " + nodesArray + "}"));
    }

    /** A fresh run of a whole definition document (for its top-level fields, such as {@code output}). */
    static RunSnapshot freshWith(String document) {
        return RunSnapshot.fresh(RUN_ID, PARSER.parse("wf", json(document)), RUN_INPUT);
    }

    static RunSnapshot fresh(String nodesArray) {
        return RunSnapshot.fresh(RUN_ID, definition(nodesArray), RUN_INPUT);
    }

    /** The snapshot the shell would load after committing {@code result} on top of {@code previous}. */
    static RunSnapshot next(RunSnapshot previous, TickResult result) {
        return new RunSnapshot(previous.runId(), previous.definition(), result.status(), result.nodes(),
                result.lastSeq(), previous.version() + 1, previous.input());
    }

    /** {@code snapshot} with some node states replaced (for states the tick reaches only via other paths). */
    static RunSnapshot withNodes(RunSnapshot snapshot, RunStatus status, Map<String, NodeState> replaced) {
        Map<String, NodeState> nodes = new java.util.LinkedHashMap<>(snapshot.nodes());
        nodes.putAll(replaced);
        return new RunSnapshot(snapshot.runId(), snapshot.definition(), status, nodes, snapshot.lastSeq(),
                snapshot.version(), snapshot.input());
    }

    static TickResult tick(RunSnapshot snapshot, Input... inputs) {
        return Tick.tick(snapshot, List.of(inputs), NOW);
    }

    static TickResult tick(RunSnapshot snapshot, Instant now, Input... inputs) {
        return Tick.tick(snapshot, List.of(inputs), now);
    }

    static Input.TaskCompleted completed(long id, String node, int attempt) {
        return new Input.TaskCompleted(id, node, attempt, json("{\"from\": \"" + node + "\", \"attempt\": " + attempt + "}"));
    }

    static Input.TaskFailed failed(long id, String node, int attempt, boolean retryable) {
        return new Input.TaskFailed(id, node, attempt, "boom " + attempt, retryable);
    }

    static Input.SignalReceived signal(long id, String name, String payload) {
        return new Input.SignalReceived(id, name, json(payload));
    }

    /** Transitions as {@code node:FROM->TO} ({@code run:} for the run's own), in seq order. */
    static List<String> moves(TickResult result) {
        return result.transitions().stream()
                .map(t -> (t.node() == null ? "run" : t.node()) + ":" + t.from() + "->" + t.to())
                .collect(Collectors.toList());
    }

    static NodeStatus state(TickResult result, String node) {
        return result.nodes().get(node).state();
    }

    static List<String> dispatched(TickResult result) {
        return result.effects().stream()
                .filter(e -> e instanceof DispatchTask)
                .map(e -> ((DispatchTask) e).node() + "#" + ((DispatchTask) e).attempt())
                .collect(Collectors.toList());
    }

    static List<ScheduleTimer> timers(TickResult result) {
        return result.effects().stream()
                .filter(e -> e instanceof ScheduleTimer)
                .map(e -> (ScheduleTimer) e)
                .collect(Collectors.toList());
    }

    static Set<Long> ids(long... ids) {
        return Arrays.stream(ids).boxed().collect(Collectors.toSet());
    }

    /** Every transition is numbered gap-free from the snapshot's last seq, and lastSeq points at the last. */
    static void assertContiguousSeq(RunSnapshot before, TickResult result) {
        long expected = before.lastSeq();
        for (Transition t : result.transitions()) {
            assertEquals(++expected, t.seq(), "seq of " + t);
        }
        assertEquals(expected, result.lastSeq(), "lastSeq");
    }

    /** Holds the current snapshot and advances it with every tick, as the shell would after a commit. */
    static final class Driver {
        RunSnapshot snapshot;

        Driver(RunSnapshot snapshot) {
            this.snapshot = snapshot;
        }

        static Driver start(String nodesArray) {
            return new Driver(fresh(nodesArray));
        }

        TickResult tick(Input... inputs) {
            return tick(NOW, inputs);
        }

        TickResult tick(Instant now, Input... inputs) {
            RunSnapshot before = snapshot;
            TickResult result = Tick.tick(before, List.of(inputs), now);
            assertContiguousSeq(before, result);
            snapshot = next(before, result);
            return result;
        }
    }
}
