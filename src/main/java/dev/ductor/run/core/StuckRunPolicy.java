package dev.ductor.run.core;

import dev.ductor.workflow.model.NodeDefinition;
import dev.ductor.workflow.model.NodeType;

/**
 * The watchdog's decision for a run that has not committed for a long time and has nothing queued or in its
 * inbox. Such a run is stuck unless a node is waiting for a signal: a signal may legitimately arrive days later
 * (with no timeout configured, there is no timer to wait for). A waiting timer or a running task always has a
 * queue row, so finding one without it means the row was lost: stuck.
 */
public final class StuckRunPolicy {

    private StuckRunPolicy() {
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
