package dev.ductor.worker;

import dev.ductor.config.DuctorConfig;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.run.LocalDispatch;
import dev.ductor.run.LocalSteps;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The steps a commit dispatches leased in that commit to a worker that can run them now: this pod's
 * {@link InProcessWorker}, up to the slots it can promise, and the external worker whose report offered slots
 * ({@code next}), one per report that asked. A chain's next step then runs without a claim.
 */
record EagerDispatch(InProcessWorker worker, DuctorConfig config) implements LocalDispatch {

    @Override
    public LocalSteps thisPod() {
        return worker;
    }

    @Override
    public LocalSteps reportingWorker(String owner, int slots, Set<String> handlers) {
        if (slots == 0) {
            return LocalSteps.NONE;
        }
        LocalSteps.Reservation reservation = new LocalSteps.Reservation(slots, handlers::contains, owner,
                config.worker().lease());
        return new LocalSteps() {
            @Override
            public Reservation reserveFor(List<NewQueueItem> items, Instant now) {
                return reservation;
            }

            @Override
            public void handOver(Reservation reserved, List<QueueItem> leased) {
                // handed to the requests by ExternalResults, from the commit's outcome
            }
        };
    }
}
