package dev.ductor.run.coordinator;

import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A run's lane in this JVM stays taken while its tick's in-process retries wait on the retry lane (finding 4 of the
 * review at 8269a5d): a wakeup claimed for that run meanwhile is handed over and ticked when the retries end, never
 * ticked beside them.
 */
@Tag("unit")
class CoordinatorLaneTest {

    private static final UUID RUN = UUID.randomUUID();
    private final AtomicLong ids = new AtomicLong();

    /** A coordinator whose first tick loses and leaves its retries pending until the test completes them. */
    private static final class RetryingCoordinator extends Coordinator {

        final List<List<QueueItem>> ticked = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> retries = new CompletableFuture<>();

        @Override
        public CompletionStage<Void> process(UUID runId, List<QueueItem> items) {
            ticked.add(items);
            return ticked.size() == 1 ? retries : CompletableFuture.completedFuture(null);
        }
    }

    private QueueItem wakeup() {
        return new QueueItem(ids.incrementAndGet(), QueueKind.WAKEUP, "t", "standard", RUN, null, 0, null, null, null, 0,
                UUID.randomUUID(), Instant.EPOCH, 1);
    }

    @Test
    void aWakeupClaimedWhileTheRunsRetriesWaitIsTickedAfterThemNotBesideThem() {
        RetryingCoordinator coordinator = new RetryingCoordinator();
        CoordinatorLoop loop = new CoordinatorLoop();
        loop.coordinator = coordinator;
        QueueItem first = wakeup();
        QueueItem second = wakeup();

        loop.tick(List.of(first));
        loop.tick(List.of(second));

        assertEquals(List.of(List.of(first)), coordinator.ticked, "the second wakeup waits for the run's retries");
        coordinator.retries.complete(null);
        assertEquals(List.of(List.of(first), List.of(second)), coordinator.ticked, "and is ticked once they have ended");

        QueueItem third = wakeup();
        loop.tick(List.of(third));
        assertEquals(List.of(first, second, third), coordinator.ticked.stream().flatMap(List::stream).toList(),
                "the lane is free again");
    }

    @Test
    void aRetryThatEndsInAnErrorFreesTheLaneToo() {
        RetryingCoordinator coordinator = new RetryingCoordinator();
        CoordinatorLoop loop = new CoordinatorLoop();
        loop.coordinator = coordinator;
        loop.tick(List.of(wakeup()));
        coordinator.retries.completeExceptionally(new IllegalStateException("the retry lane stopped"));

        QueueItem next = wakeup();
        loop.tick(List.of(next));
        assertEquals(List.of(next), coordinator.ticked.get(1));
    }
}
