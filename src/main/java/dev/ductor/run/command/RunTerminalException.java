package dev.ductor.run.command;

import dev.ductor.error.ConflictException;

import java.util.Map;
import java.util.UUID;

/** A command for a run that has already finished: nothing can change it any more. */
public class RunTerminalException extends ConflictException {

    public RunTerminalException(UUID runId, String status, String what) {
        super("run-terminal", "Run " + runId + " is already " + status + "; " + what + " was not applied.",
                Map.of("runId", runId, "runStatus", status));
    }
}
