package dev.ductor.run.core;

import dev.ductor.workflow.model.NodeDefinition;
import dev.ductor.workflow.model.NodeType;

import java.time.Instant;
import java.util.List;

/**
 * The watchdog's decision for a run that has not committed for a long time and has nothing queued. Recovering
 * comes before failing: if a tick would change anything (a result or signal waits in the inbox, a node is ready
 * to start), the run only lost its wakeup, and a wakeup is free. Otherwise it is stuck unless a node is waiting
 * for a signal: a signal may legitimately arrive days later (with no timeout configured, there is no timer to
 * wait for). A waiting timer or a running task always has a queue row, so finding one without it means the row
 * was lost: stuck.
 */
public final class StuckRunPolicy {

    private StuckRunPolicy() {
    }

    public enum Verdict {
        /** Nothing to do: finished, or parked on a signal. */
        LEAVE,
        /** A tick would advance it: queue a wakeup. */
        WAKE,
        /** Nothing can advance it: force-fail it, at the seq it was judged on. */
        FAIL
    }

    /** {@code inbox} is the run's pending input as the tick would see it; {@code now} only feeds that tick. */
    public static Verdict verdict(RunSnapshot run, List<? extends Input> inbox, Instant now) {
        if (run.status().isTerminal()) {
            return Verdict.LEAVE;
        }
        TickResult wouldBe = Tick.tick(run, inbox, now);
        if (!wouldBe.isNoop() || !wouldBe.discardedInputs().isEmpty()) {
            return Verdict.WAKE;
        }
        return isStuck(run) ? Verdict.FAIL : Verdict.LEAVE;
    }

    public static boolean isStuck(RunSnapshot run) {
        if (run.status().isTerminal()) {
            return false;
        }
        for (NodeDefinition node : run.definition().nodes()) {
            if (node.type() == NodeType.SIGNAL && run.nodes().get(node.id()).state() == NodeStatus.WAITING) {
                return false;
            }
        }
        return true;
    }
}
