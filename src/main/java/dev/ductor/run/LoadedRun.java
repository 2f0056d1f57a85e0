package dev.ductor.run;

import dev.ductor.run.core.Input;
import dev.ductor.run.core.RunSnapshot;

import java.util.List;

/** A run read inside a tick's transaction: the managed row, its pure snapshot, and its pending inbox. */
public record LoadedRun(WorkflowRunEntity entity, RunSnapshot snapshot, List<Input> inbox) {
}
