package dev.ductor.run;

import java.util.Set;

/**
 * Where the steps a commit dispatches go ({@code ductor.dispatch.local}), asked by every commit that dispatches steps:
 * a start ({@code commit/RunStarter}), a group commit of step results ({@code commit/GroupCommit}). Eager: the steps a worker can run
 * now are leased to it in that same commit, no claim needed; queue: every step is queued, and a claim takes it. Chosen
 * once at start-up ({@code worker/Seams}); callers ask it whom they may lease to, never the setting. An interface in
 * {@code run/}, implemented in {@code worker/}, as {@link LocalSteps} is.
 */
public interface LocalDispatch {

    /** This pod's in-process worker, as this pod's commits see it; {@link LocalSteps#NONE} to queue every step. */
    LocalSteps thisPod();

    /**
     * The external worker {@code owner}, whose reports committed together offered {@code slots} free slots for
     * {@code handlers} ({@code next}): what a commit leases to it goes back with the answers. {@link LocalSteps#NONE}
     * to queue every step (a report's {@code next} is then answered with none).
     */
    LocalSteps reportingWorker(String owner, int slots, Set<String> handlers);
}
