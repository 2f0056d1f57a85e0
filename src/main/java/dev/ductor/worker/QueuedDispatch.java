package dev.ductor.worker;

import dev.ductor.run.LocalDispatch;
import dev.ductor.run.LocalSteps;

import java.util.Set;

/**
 * Every step a commit dispatches queued, for a claim ({@code FOR UPDATE SKIP LOCKED}): the in-process worker's claim
 * loop, external workers' long polls. A report's {@code next} is answered with no task.
 */
final class QueuedDispatch implements LocalDispatch {

    @Override
    public LocalSteps thisPod() {
        return LocalSteps.NONE;
    }

    @Override
    public LocalSteps reportingWorker(String owner, int slots, Set<String> handlers) {
        return LocalSteps.NONE;
    }
}
