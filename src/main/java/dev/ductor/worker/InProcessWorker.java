package dev.ductor.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.DuctorConfig;
import dev.ductor.config.JsonCodec;
import dev.ductor.config.PodIdentity;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.TaskClaim;
import dev.ductor.queue.TaskLeases;
import dev.ductor.queue.QueueSignal;
import dev.ductor.queue.TierWeights;
import dev.ductor.run.LocalSteps;
import dev.ductor.run.StepReport;
import dev.ductor.queue.NewQueueItem;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs task nodes whose handler ships in this process. One claimer takes as many tasks as there are unclaimed slots,
 * in one claim (so a burst of work costs one claim, and one queued task wakes one claimer, not every thread);
 * each task runs on a slot of its own ({@link StepSlots}), outside any transaction (a step may take minutes),
 * heartbeating its lease meanwhile; its result goes to the {@link CommitStrategy}, which applies it to its run (in a
 * group commit, by default). A task leased here that finds no free slot waits in line for one, at most a third of its lease,
 * and is then handed back to the queue for any pod.
 */
@ApplicationScoped
public class InProcessWorker implements LocalSteps {

    private static final Logger LOG = Logger.getLogger(InProcessWorker.class);
    /** A claimer that found every free slot promised looks again after this. */
    private static final Duration CLAIM_RECHECK = Duration.ofMillis(5);
    /** A claimed task whose lease has less than this left is handed back, not started: it could not finish in time. */
    private static final Duration MIN_LEASE_LEFT = Duration.ofSeconds(1);

    @Inject TaskClaim claim;
    @Inject TaskLeases leases;
    @Inject StepHandlers handlers;
    @Inject TaskResults results;
    @Inject CommitStrategy commits;
    @Inject QueueSignal signal;
    @Inject DuctorConfig config;
    @Inject PodIdentity pod;
    @Inject JsonCodec json;
    @Inject Clock clock;
    @Inject TierWeights weights;
    private final Map<Long, QueueItem> inFlight = new ConcurrentHashMap<>();
    private final HandlerPace pace = new HandlerPace();
    /** Steps on slots now whose handler was not known to be quick when they started: no line forms behind them. */
    private final AtomicInteger slowOnSlots = new AtomicInteger();
    private volatile boolean running;
    private StepSlots slots;
    private Thread claimer;
    private ExecutorService steps;
    private ScheduledExecutorService heartbeats;

    void start(@Observes StartupEvent event) {
        if (!config.worker().enabled()) {
            return;
        }
        int threads = config.worker().threads();
        slots = new StepSlots(threads, this::startOnSlot);
        heartbeats = Executors.newSingleThreadScheduledExecutor(named("ductor-heartbeat", new AtomicInteger()));
        steps = Executors.newFixedThreadPool(threads, named("ductor-worker-", new AtomicInteger()));
        running = true;
        claimer = named("ductor-worker-claim", new AtomicInteger()).newThread(this::claimLoop);
        claimer.start();
    }

    /**
     * Stops claiming, lets running steps finish for a while and their results commit, then hands the ones still
     * running back to the queue, so that a pod restart never costs a run one of its attempts.
     */
    void stop(@Observes ShutdownEvent event) {
        if (!running) {
            return;
        }
        running = false;
        claimer.interrupt();
        steps.shutdown();
        try {
            steps.awaitTermination(10, TimeUnit.SECONDS);
            claimer.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        commits.drain(Duration.ofSeconds(10));
        heartbeats.shutdownNow();
        inFlight.values().forEach(task -> {
            try {
                QuarkusTransaction.requiringNew().run(() -> leases.release(task.id(), task.leaseToken(), clock.instant()));
                LOG.infof("released task %d of run %s unfinished for another pod", task.id(), task.runId());
            } catch (RuntimeException e) {
                LOG.warnf("could not release task %d: %s; its lease will expire", task.id(), e.getMessage());
            }
        });
    }

    private void claimLoop() {
        Duration idle = config.worker().idlePoll();
        Duration backoff = idle;
        int emptyRounds = 0;
        while (running) {
            try {
                if (!slots.awaitFree(idle.toMillis())) {
                    continue; // every slot busy: a finishing step frees one
                }
                int free = slots.unclaimed();
                if (free <= 0) {
                    Thread.sleep(CLAIM_RECHECK.toMillis()); // the free slots are promised to commits ending now
                    continue;
                }
                int claimed = claim(free);
                backoff = idle;
                emptyRounds = claimed == 0 ? emptyRounds + 1 : 0;
                // Fewer tasks than free slots: the queue had no more due for this pod just now, so claiming again
                // at once would come back empty: a transaction for nothing after every productive claim.
                // Wait for a task queued here, or the idle interval for those queued by other pods. A task queued
                // while the claim ran waits that interval too, on purpose: the starts and group commits of this pod
                // lease their steps to it without a claim whenever a slot is unpromised, so a task queued here meant
                // none was, and a claim at once would mostly find the slots as busy.
                if (claimed < free && signal.await(QueueSignal.Channel.STEP_WORKERS,
                        QueueSignal.idleWait(idle, emptyRounds))) {
                    emptyRounds = 0; // a step was queued here: claim promptly again until the queue runs dry
                }
            } catch (InterruptedException e) {
                return; // stopping
            } catch (RuntimeException e) {
                if (!running) {
                    return;
                }
                // The database may be restarting or unreachable: back off instead of spinning on errors.
                LOG.warnf(e, "claiming in-process tasks failed; retrying in %s", backoff);
                try {
                    Thread.sleep(backoff.toMillis());
                } catch (InterruptedException stop) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5) : backoff.multipliedBy(2);
            }
        }
    }

    /** One claim of up to {@code max} tasks, each started on a free slot or lined up for one; returns how many. */
    private int claim(int max) {
        Duration lease = config.worker().lease();
        List<QueueItem> claimed = QuarkusTransaction.requiringNew().call(() -> claim.claimTasks(handlers.inProcessNames(),
                null, null, pod.name(), max, lease, clock.instant(), weights));
        claimed.forEach(this::runLeased);
        return claimed.size();
    }

    /**
     * Runs a task leased to this pod on a free slot, or lines it up for the next one. One that waits a third of its
     * lease without a slot (the steps on them are long) goes back to the queue for any pod, its lease still good for
     * two thirds, rather than wait here till it runs out.
     */
    void runLeased(QueueItem task) {
        inFlight.put(task.id(), task);
        if (!slots.offer(task)) {
            try {
                heartbeats.schedule(() -> {
                    if (slots.withdraw(task)) {
                        inFlight.remove(task.id());
                        LOG.infof("task %d of run %s waited %s for a slot here; handed back for any pod", task.id(),
                                task.runId(), config.worker().lease().dividedBy(3));
                        release(task);
                    }
                }, config.worker().lease().toMillis() / 3, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException stopping) {
                // The pod is stopping: stop() hands back every task still in flight, this one with them.
            }
        }
    }

    /** Runs a task on the slot {@link StepSlots} gave it; the slot is freed when the step ends. */
    private void startOnSlot(QueueItem task) {
        boolean slow = !pace.isQuick(task.handler());
        if (slow) {
            slowOnSlots.incrementAndGet();
        }
        try {
            steps.execute(() -> {
                try {
                    run(task, config.worker().lease());
                } finally {
                    inFlight.remove(task.id());
                    if (slow) {
                        slowOnSlots.decrementAndGet();
                    }
                    slots.freed();
                }
            });
        } catch (RejectedExecutionException stopping) {
            // Leased in the instant this pod began to stop: hand it back at once rather than let its lease run out.
            inFlight.remove(task.id());
            if (slow) {
                slowOnSlots.decrementAndGet();
            }
            slots.freed();
            release(task);
        }
    }

    /** Hands a task leased to this pod back to the queue, unstarted. */
    private void release(QueueItem task) {
        try {
            QuarkusTransaction.requiringNew().run(() -> leases.release(task.id(), task.leaseToken(), clock.instant()));
        } catch (RuntimeException e) {
            LOG.warnf("could not release task %d: %s; its lease will expire", task.id(), e.getMessage());
        }
    }

    @Override
    public LocalSteps.Reservation reserveFor(List<NewQueueItem> items, java.time.Instant now) {
        if (!running) {
            return LocalSteps.Reservation.NONE;
        }
        // Steps of handlers that are quick lately may also be promised room in the line, one place for each slot
        // that no slow step holds (it is free, promised to a commit in flight, or runs a quick step): they wait there
        // about as long as such a step takes, which is shorter than a claim. Behind slow steps they would wait a third
        // of a lease while other pods' slots idle, and slow steps never wait here beyond the free slots.
        int wanted = LocalSteps.Reservation.wanted(items, this::runsHere, now);
        if (wanted == 0) {
            return LocalSteps.Reservation.NONE; // nothing for this pod: most commits that end runs
        }
        boolean allQuick = items.stream().filter(item -> item.kind() == QueueKind.TASK)
                .allMatch(item -> !runsHere(item.handler()) || pace.isQuick(item.handler()));
        int reserved = slots.promise(wanted, allQuick ? Math.max(0, config.worker().threads() - slowOnSlots.get()) : 0);
        return reserved == 0 ? LocalSteps.Reservation.NONE
                : new LocalSteps.Reservation(reserved, this::runsHere, pod.name(), config.worker().lease());
    }

    @Override
    public void handOver(LocalSteps.Reservation reserved, List<QueueItem> leased) {
        leased.forEach(this::runLeased); // before the promise ends, so that no claim counts these slots meanwhile
        slots.settle(reserved.slots());
    }

    /** Whether a handler is one of this process's own, so a step of it can run here. */
    private boolean runsHere(String handler) {
        return handlers.inProcess(handler).isPresent();
    }

    /** Records that a step of {@code handler} took {@code nanos} (what each step does; tests set a handler's pace). */
    void recordPace(String handler, long nanos) {
        pace.record(handler, nanos);
    }

    /** Whether the step of this task is still on one of this pod's slots. */
    boolean isRunning(long taskId) {
        return inFlight.containsKey(taskId);
    }

    private void run(QueueItem task, Duration lease) {
        if (task.leaseExpiresAt().isBefore(clock.instant().plus(MIN_LEASE_LEFT))) {
            LOG.infof("task %d of run %s: too little of its lease is left to start it; handed back for any pod",
                    task.id(), task.runId());
            release(task); // not left to run out: the reaper would count it as a failed attempt
            return;
        }
        StepHandler handler = handlers.inProcess(task.handler()).orElseThrow();
        if (handler.hasExternalEffects() && !stillLeased(task, lease)) {
            return;
        }
        Thread stepThread = Thread.currentThread();
        long every = Math.max(1, lease.toMillis() / 3);
        ScheduledFuture<?> heartbeat = heartbeats.scheduleAtFixedRate(() -> {
            try {
                results.heartbeat(null, task.id(), task.leaseToken(), lease);
            } catch (dev.ductor.error.ConflictException lost) {
                // Someone else owns the attempt now: stop the step, its result would be refused anyway.
                LOG.infof("task %d of run %s: lease lost; stopping the step", task.id(), task.runId());
                stepThread.interrupt();
                throw lost; // ends this heartbeat schedule
            } catch (RuntimeException failed) {
                LOG.debugf("heartbeat of task %d failed: %s", task.id(), failed.getMessage());
            }
        }, every, every, TimeUnit.MILLISECONDS);
        StepReport report;
        try {
            JsonNode input = task.payload() == null ? null : json.tree(task.payload());
            long began = System.nanoTime();
            JsonNode output;
            try {
                output = handler.run(new StepContext(task.runId(), task.nodeId(), task.attempt()), input);
            } finally {
                pace.record(task.handler(), System.nanoTime() - began);
            }
            report = StepReport.completed(task.id(), task.leaseToken(), task.runId(), task.nodeId(), task.attempt(),
                    task.tenant(), task.tier(), output);
        } catch (StepFailure failure) {
            report = failed(task, failure.getMessage(), failure.retryable());
        } catch (InterruptedException e) {
            return; // shutting down or the lease was lost: another pod runs the step
        } catch (Exception e) {
            report = failed(task, e.getClass().getSimpleName() + ": " + e.getMessage(), true);
        } finally {
            heartbeat.cancel(false);
            Thread.interrupted(); // a lost-lease interrupt that came after the step finished must not leak to the next
        }
        if (heartbeat.isDone() && !heartbeat.isCancelled()) {
            return; // the lease was lost while the step ran
        }
        commits.report(report);
    }

    /**
     * Confirms with the database, by extending it, that the lease is still this pod's: the last word before an effect
     * outside Ductor. The pod's own reckoning cannot know that it was frozen past the lease, or that its clock runs
     * behind the database's, while another pod reaped the lease and took the step over.
     */
    private boolean stillLeased(QueueItem task, Duration lease) {
        try {
            results.heartbeat(null, task.id(), task.leaseToken(), lease);
            return true;
        } catch (dev.ductor.error.ConflictException lost) {
            LOG.infof("task %d of run %s: its lease is no longer this pod's (expired and reaped, or superseded); not started",
                    task.id(), task.runId());
        } catch (RuntimeException unreachable) {
            LOG.warnf("task %d of run %s: could not confirm its lease (%s); not started, the lease will run out and the"
                    + " reaper hand the attempt on", task.id(), task.runId(), unreachable.getMessage());
        }
        return false;
    }

    private static StepReport failed(QueueItem task, String error, boolean retryable) {
        return StepReport.failed(task.id(), task.leaseToken(), task.runId(), task.nodeId(), task.attempt(), task.tenant(),
                task.tier(), error, retryable);
    }

    private static ThreadFactory named(String prefix, AtomicInteger counter) {
        return r -> {
            Thread t = new Thread(r, prefix.endsWith("-") ? prefix + counter.getAndIncrement() : prefix);
            t.setDaemon(true);
            return t;
        };
    }
}
