package dev.ductor.run.command;

import dev.ductor.error.ConflictException;
import dev.ductor.run.core.OperatorActions;
import dev.ductor.run.read.RunView;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * An operator's PATCH that does not apply to the run as its change meets it (the run finished, or a node is no
 * longer in a state the action applies to). Like every 409 it carries the run as it is now ({@code current}) and
 * what was sent ({@code rejected}). None of the operator's change is saved; results that had already arrived and
 * that the change met are applied, as the next tick would apply them anyway.
 */
public class PatchRefusedException extends ConflictException {

    private PatchRefusedException(String type, String message, Map<String, Object> extensions) {
        super(type, message, extensions);
    }

    /** The run is finished, or finishes on the results the change met. */
    public static PatchRefusedException runTerminal(UUID runId, String status, boolean onPendingResults, RunView current,
                                                    Object rejected) {
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("runId", runId);
        extensions.put("runStatus", status);
        return new PatchRefusedException("run-terminal", "Run " + runId + " is " + (onPendingResults
                ? status + " once the results that arrived before your change are applied" : "already " + status)
                + "; the change was not applied, nothing of it was saved.", with(extensions, current, rejected));
    }

    /** A node action that does not apply to the node as the change found it. */
    public static PatchRefusedException nodeAction(List<OperatorActions.Refusal> refusals, RunView current, Object rejected) {
        OperatorActions.Refusal first = refusals.get(0);
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("node", first.node());
        extensions.put("action", wire(first.action()));
        extensions.put("refusals", refusals.stream().map(r -> Map.of("node", r.node(), "action", wire(r.action()),
                "reason", r.reason())).toList());
        return new PatchRefusedException("node-action-refused", first.reason() + ". The change was not applied,"
                + " nothing of it was saved; review the current state and send it again if it still applies.",
                with(extensions, current, rejected));
    }

    /** A reset that cannot apply: the run still runs, a succeeded run without asking, or nodes it does not have. */
    public static PatchRefusedException reset(UUID runId, String type, String message, RunView current, Object rejected) {
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("runId", runId);
        return new PatchRefusedException(type, message + " Nothing was saved.", with(extensions, current, rejected));
    }

    private static Map<String, Object> with(Map<String, Object> extensions, RunView current, Object rejected) {
        extensions.put("saved", false);
        extensions.put("current", current);
        extensions.put("rejected", rejected);
        return extensions;
    }

    private static String wire(OperatorActions.Action action) {
        return action.name().toLowerCase(Locale.ROOT);
    }
}
