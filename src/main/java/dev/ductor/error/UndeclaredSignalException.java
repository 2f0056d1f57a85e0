package dev.ductor.error;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A signal no node of the run's revision waits for. Accepting it would be a 202 for a signal that can never be used (a
 * misspelt name, or a signal meant for another workflow), so it is refused and the names the run does take are listed.
 */
public class UndeclaredSignalException extends DuctorException {

    private final UUID runId;
    private final String signal;
    private final List<String> declaredSignals;

    public UndeclaredSignalException(UUID runId, String signal, String workflow, int revision, List<String> declaredSignals) {
        super("Run " + runId + " (workflow '" + workflow + "' revision " + revision + ") has no node waiting for a signal '"
                + signal + "'; it takes " + (declaredSignals.isEmpty() ? "no signals at all" : "only " + String.join(", ", declaredSignals))
                + ". Nothing was delivered.");
        this.runId = runId;
        this.signal = signal;
        this.declaredSignals = List.copyOf(declaredSignals);
    }

    @Override
    public int status() {
        return 422;
    }

    @Override
    public String type() {
        return "undeclared-signal";
    }

    @Override
    public String title() {
        return "The run's workflow declares no such signal";
    }

    @Override
    public Map<String, Object> extensions() {
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("runId", runId.toString());
        extensions.put("signal", signal);
        extensions.put("declaredSignals", declaredSignals);
        extensions.put("field", "name");
        return extensions;
    }
}
