package dev.ductor.support;

import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.run.LocalSteps;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** A pod's worker with a fixed number of free slots, recording what each commit hands over to it. */
public final class FixedSlots implements LocalSteps {

    private final int free;
    private final Predicate<String> runsHere;
    public final List<QueueItem> handedOver = new ArrayList<>();
    public int reservations;

    public FixedSlots(int free, Predicate<String> runsHere) {
        this.free = free;
        this.runsHere = runsHere;
    }

    @Override
    public Reservation reserveFor(List<NewQueueItem> items, Instant now) {
        reservations++;
        int slots = Math.min(free, Reservation.wanted(items, runsHere, now));
        return slots == 0 ? Reservation.NONE : new Reservation(slots, runsHere, "pod-eager", Duration.ofSeconds(30));
    }

    @Override
    public void handOver(Reservation reserved, List<QueueItem> leased) {
        handedOver.addAll(leased);
    }
}
