package dev.ductor.worker;

import dev.ductor.queue.QueueItem;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The in-process worker's slots: at most {@code slots} steps run at once; a step leased to this pod when none is free
 * waits in line and takes the next slot that frees.
 *
 * <p>Leasing never holds a slot. A commit that dispatches steps promises itself slots that are neither running, nor
 * waited for, nor promised to another commit ({@link #promise}), and leases that many to this pod; the claimer claims
 * as many as are unpromised ({@link #unclaimed}). Both hand what they leased to {@link #offer}. A claim does not hold
 * the free slots while it runs: if it did, every start and group commit meanwhile would find none and queue its steps
 * for the next claim, which would hold the slots again, so many steps would pay for a claim (and its transaction), and
 * a burst of starts could find the slots held throughout (EagerStartTest). Instead a
 * claim and a commit that race may together lease a few more steps than there are free slots; those wait in line,
 * which for steps of milliseconds is shorter than the claim they would otherwise have needed. For the same reason a
 * commit may be promised room in the line itself for steps of handlers known to be quick ({@link #promise(int, int)}).
 */
final class StepSlots {

    private final Semaphore free;
    private final ConcurrentLinkedQueue<QueueItem> waiting = new ConcurrentLinkedQueue<>();
    /** {@code waiting}'s size, kept beside it: the queue's own size() walks it. */
    private final AtomicInteger waitingCount = new AtomicInteger();
    private final AtomicInteger promised = new AtomicInteger();
    private final Consumer<QueueItem> start;

    /**
     * {@code start} runs a step on the slot it is given, and calls {@link #freed} when the step has ended (or could
     * not be started).
     */
    StepSlots(int slots, Consumer<QueueItem> start) {
        this.free = new Semaphore(slots);
        this.start = start;
    }

    /** Promises up to {@code wanted} slots to a commit about to lease steps to this pod; returns how many. */
    int promise(int wanted) {
        return promise(wanted, 0);
    }

    /**
     * {@link #promise(int)}, letting the line for slots grow to {@code lineRoom} steps: for steps known to be quick,
     * waiting in line here for a few of them to end is shorter than the claim (its transaction, its wake-up) they
     * would otherwise go through.
     */
    int promise(int wanted, int lineRoom) {
        while (true) {
            int already = promised.get();
            int granted = Math.min(wanted, free.availablePermits() + lineRoom - waitingCount.get() - already);
            if (granted <= 0) {
                return 0;
            }
            if (promised.compareAndSet(already, already + granted)) {
                return granted;
            }
        }
    }

    /** Ends a promise: the commit has ended and {@link #offer}ed what it leased (nothing, if it rolled back). */
    void settle(int slots) {
        promised.addAndGet(-slots);
    }

    /** How many steps a claim may take now: slots neither running, nor waited for, nor promised. */
    int unclaimed() {
        return free.availablePermits() - waitingCount.get() - promised.get();
    }

    /** Waits up to {@code millis} for a slot to be free (without taking it); whether one is. */
    boolean awaitFree(long millis) throws InterruptedException {
        if (!free.tryAcquire(millis, TimeUnit.MILLISECONDS)) {
            return false;
        }
        free.release();
        return true;
    }

    /** Starts a step leased to this pod on a free slot, or lines it up for the next; true if it started at once. */
    boolean offer(QueueItem task) {
        if (waitingCount.get() == 0 && free.tryAcquire()) {
            start.accept(task);
            return true;
        }
        waiting.add(task);
        waitingCount.incrementAndGet();
        startWaiting();
        return false;
    }

    /** Takes a step out of line before it started; false if it has started (or was never in line). */
    boolean withdraw(QueueItem task) {
        if (waiting.remove(task)) {
            waitingCount.decrementAndGet();
            return true;
        }
        return false;
    }

    /** A step ended: its slot goes to the first in line, else back to the free ones. */
    void freed() {
        free.release();
        startWaiting();
    }

    /** How many steps wait for a slot (for tests and the log). */
    int waiting() {
        return waitingCount.get();
    }

    /**
     * Starts those in line while slots are free. Every {@link #offer} that lines up and every {@link #freed} calls it
     * after its own change, so a step in line is never left waiting beside a free slot.
     */
    private void startWaiting() {
        while (waitingCount.get() > 0 && free.tryAcquire()) {
            QueueItem next = waiting.poll();
            if (next == null) {
                free.release(); // another caller took it between the count and the poll, and starts it
                return;
            }
            waitingCount.decrementAndGet();
            start.accept(next);
        }
    }
}
