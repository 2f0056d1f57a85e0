package dev.ductor.run;

import dev.ductor.run.core.Input;
import dev.ductor.run.core.RunSnapshot;

import java.util.List;

/**
 * A run read inside a tick's transaction: its row as read (a plain value: the change is written by
 * {@link RunRows#write}, never by a flush), its pure snapshot, and its pending inbox.
 */
public record LoadedRun(RunRows.Row row, RunSnapshot snapshot, List<Input> inbox) {
}
