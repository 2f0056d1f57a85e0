package dev.ductor.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.JsonCodec;
import dev.ductor.run.core.Input;
import dev.ductor.run.core.NodeState;
import dev.ductor.run.core.RunSnapshot;
import dev.ductor.run.core.RunStatus;
import dev.ductor.run.core.StateChecksum;
import dev.ductor.workflow.WorkflowService;
import dev.ductor.workflow.model.WorkflowDefinition;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** Reads a run for a tick: the row (checksum verified), its pinned definition, and its pending inbox. */
@ApplicationScoped
public class RunLoader {

    @Inject RunRows rows;
    @Inject WorkflowService workflows;
    @Inject NodeStatesCodec codec;
    @Inject RunInbox inbox;
    @Inject JsonCodec json;

    public Optional<LoadedRun> load(UUID runId) {
        RunRows.Row row = rows.read(runId);
        if (row == null) {
            return Optional.empty();
        }
        RunSnapshot snapshot = snapshot(row);
        List<Input> inputs = snapshot.status().isTerminal() ? List.of() : inputs(runId);
        return Optional.of(new LoadedRun(row, snapshot, inputs));
    }

    /**
     * The pure snapshot of a row read by plain SQL, checksum verified: over everything the tick reads (status, seq,
     * tier, output, node states), so a row changed outside Ductor is refused here, before any decision on it.
     */
    public RunSnapshot snapshot(RunRows.Row row) {
        WorkflowDefinition definition = workflows.revision(row.tenant(), row.workflowName(), row.revision());
        Map<String, NodeState> nodes = codec.read(row.nodeStates(), definition);
        StateChecksum.Covered covered = new StateChecksum.Covered(row.status(), row.lastSeq(), row.tier(),
                json.tree(row.output()), nodes);
        if (!StateChecksum.matches(row.checksum(), covered)) {
            throw new CorruptRunStateException(row.runId(), row.checksum(), StateChecksum.of(covered));
        }
        return new RunSnapshot(row.runId(), definition, RunStatus.valueOf(row.status()), nodes,
                row.lastSeq(), row.version(), json.tree(row.input()), row.revision());
    }

    private List<Input> inputs(UUID runId) {
        return inputs(inbox.pending(runId));
    }

    /** Pending inbox rows as the tick's inputs, in arrival order. */
    public List<Input> inputs(List<InboxMessage> pending) {
        List<Input> inputs = new ArrayList<>();
        for (InboxMessage message : pending) {
            JsonNode payload = json.tree(message.payload());
            switch (message.kind()) {
                case TASK_RESULT -> inputs.add(taskResult(message, payload));
                case SIGNAL -> inputs.add(new Input.SignalReceived(message.id(), payload.path("name").asText(),
                        payload.get("payload")));
                case CANCEL -> inputs.add(new Input.CancelRequested(message.id(), payload.path("reason").asText("cancelled")));
            }
        }
        return inputs;
    }

    private static Input taskResult(InboxMessage message, JsonNode payload) {
        if (payload.path("completed").asBoolean()) {
            return new Input.TaskCompleted(message.id(), message.nodeId(), message.attempt(), payload.get("output"));
        }
        String error = payload.path("error").asText("failed");
        if (payload.path("leaseExpired").asBoolean()) { // the reaper's; rows reaped before it existed are failures
            return new Input.LeaseExpired(message.id(), message.nodeId(), message.attempt(), error,
                    payload.path("retryBudget").asInt(0));
        }
        return new Input.TaskFailed(message.id(), message.nodeId(), message.attempt(), error,
                payload.path("retryable").asBoolean(true));
    }
}
