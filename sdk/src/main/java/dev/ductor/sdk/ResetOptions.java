package dev.ductor.sdk;

import java.util.List;

/**
 * What {@link DuctorClient#resetRun} reopens: the failed nodes ({@link #failedOnly()}), or the named nodes
 * ({@link #fromNodes(String...)}), each with everything downstream of it; optionally onto the workflow's current
 * revision ({@link #toCurrentRevision()}), and a SUCCEEDED run only when asked ({@link #reopenSucceeded()}). The
 * components are what is sent: {@code fromNodes}, {@code failedOnly}, {@code toRevision: "current"},
 * {@code reopenSucceeded}.
 */
public record ResetOptions(List<String> nodes, boolean failed, boolean currentRevision, boolean reopen) {

    public ResetOptions {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
    }

    /** Resets the nodes that failed (and what is downstream of them). */
    public static ResetOptions failedOnly() {
        return new ResetOptions(List.of(), true, false, false);
    }

    /** Resets these nodes and everything downstream of them. */
    public static ResetOptions fromNodes(String... nodes) {
        return new ResetOptions(List.of(nodes), false, false, false);
    }

    /** Pins the run to the workflow's current revision (validated as a start would be). */
    public ResetOptions toCurrentRevision() {
        return new ResetOptions(nodes, failed, true, reopen);
    }

    /** Allows reopening a run that SUCCEEDED. */
    public ResetOptions reopenSucceeded() {
        return new ResetOptions(nodes, failed, currentRevision, true);
    }
}
