package dev.ductor.sdk.worker;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.type.TypeFactory;
import dev.ductor.sdk.ConflictException;
import dev.ductor.sdk.DuctorClient;
import dev.ductor.sdk.DuctorException;
import dev.ductor.sdk.NotFoundException;
import dev.ductor.sdk.ServerUnavailableException;
import dev.ductor.sdk.TaskApi;
import dev.ductor.sdk.TaskApi.ClaimedTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * An external worker: runs the handlers registered for {@code ext:} task nodes.
 *
 * <ul>
 *   <li>At most {@code concurrency} handlers run at once: a slot is a running handler. One claimer long-polls
 *       {@code POST /tasks/claim} for as many tasks as there are free slots nobody waits for. An empty poll polls
 *       again at once; an error (no answer, 5xx, 503 with Retry-After) backs off exponentially with jitter, so "no
 *       work" and "server down" are told apart.</li>
 *   <li>A handler's slot is freed the moment it returns: its result is handed to a reporter while the slot runs the
 *       next task, as the server's in-process workers hand their results to a group commit. Two reporters each send
 *       what finished meanwhile as one {@code POST /tasks/report} (up to 100 results, one request and one group
 *       commit on the server), so neither the steps in flight nor the server's work per step is bounded by a
 *       report's round trip. The answer may carry runs' next steps, leased to this worker (eager dispatch); they wait
 *       in line for the next free slot. Unreported results are bounded ({@code 2 x concurrency}): past it, no claim.
 *       So a worker holds about {@code 4 x concurrency} leases at most: running, waiting for a slot, being reported.</li>
 *   <li>Every running task is heartbeated at a third of its remaining lease. A heartbeat answered 409 means the lease
 *       is lost (reaped, or superseded by an operator's retry/skip): the handler's context is cancelled, its thread
 *       interrupted, and its result discarded.</li>
 *   <li>A result is completed; an exception fails the attempt, retryable unless it is a {@link NonRetryableException}
 *       (or the {@code retryable} predicate says no). Reports are retried on transient errors; completing twice is
 *       harmless on the server.</li>
 *   <li>{@link #start()} makes the first claim before it returns, so a server that does not answer or a token it
 *       refuses fails the start at once, with a {@link WorkerStartException} that says which. {@link #isReady()} is
 *       true while the worker runs and its last claim was answered: a readiness probe for the worker's pod.</li>
 *   <li>{@link #shutdown(Duration)} stops claiming, tells running handlers ({@link TaskContext#isShuttingDown()}),
 *       lets them finish within the grace period while still heartbeating, and hands back to the server
 *       ({@code POST /tasks/{id}/release}) what it did not finish: tasks a last poll brought in after the shutdown
 *       began, unstarted, and handlers still running at the end of the grace, cancelled and not reported. A task
 *       handed back is queued again at once for another worker, on the same attempt: none is spent.</li>
 *   <li>While a handler runs, the SLF4J MDC holds {@code ductor.runId}, {@code ductor.node}, {@code ductor.attempt}
 *       and {@code ductor.taskId}.</li>
 * </ul>
 *
 * <pre>{@code
 * DuctorWorker worker = DuctorWorker.builder(client)
 *         .handler("charge", Charge.class, (charge, ctx) -> new Receipt(gateway.charge(charge)))
 *         .concurrency(16)
 *         .build()
 *         .start();
 * Runtime.getRuntime().addShutdownHook(new Thread(worker::close));
 * }</pre>
 */
public final class DuctorWorker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DuctorWorker.class);
    private static final int MAX_ERROR_LENGTH = 4000;
    private static final int REPORTERS = 2;
    /** The most results one batched report carries (the server's bound). */
    private static final int MAX_BATCH = 100;

    private enum State { NEW, RUNNING, DRAINING, STOPPED }

    private record Registration(String name, JavaType inputType, TaskHandler<Object, Object> handler) {
    }

    private final TaskApi tasks;
    private final String server;
    private final ObjectMapper mapper;
    private final Map<String, Registration> handlers;
    private final List<String> handlerNames;
    private final String workerId;
    private final String pool;
    private final int concurrency;
    private final int waitSeconds;
    private final Duration maxHeartbeatInterval;
    private final Duration backoffBase;
    private final Duration backoffCap;
    private final Duration reportTimeout;
    private final Duration defaultGrace;
    private final Predicate<Throwable> retryable;
    private final WorkerMetrics metrics;

    /** Running handlers: a permit per free slot. */
    private final Semaphore slots;
    /** Leased tasks waiting for a slot (a report's next step, a claim that raced one). */
    private final ConcurrentLinkedQueue<Execution> line = new ConcurrentLinkedQueue<>();
    private final AtomicInteger waiting = new AtomicInteger();
    /** Results handed to the reporters and not yet answered; the claimer stops at {@link #maxUnreported}. */
    private final AtomicInteger unreported = new AtomicInteger();
    private final int maxUnreported;
    /** Every leased task until it is reported, handed back or dropped: waiting, running or being reported. */
    private final Set<Execution> inFlight = ConcurrentHashMap.newKeySet();
    private final ExecutorService handlerThreads;
    /** Finished tasks whose results wait for a reporter. */
    private final LinkedBlockingQueue<Finished> toReport = new LinkedBlockingQueue<>();
    private final ExecutorService reporters;
    /** Woken when a slot frees or a report is answered: the claimer may have room again. */
    private final Object room = new Object();
    private final ScheduledExecutorService heartbeats;
    private volatile State state = State.NEW;
    /** Whether the last claim was answered (readiness). */
    private volatile boolean serverAnswers;
    private Thread claimer;

    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong leaseLost = new AtomicLong();
    private final AtomicLong abandoned = new AtomicLong();
    private final AtomicLong claimRequests = new AtomicLong();
    private final AtomicLong reportRequests = new AtomicLong();

    private DuctorWorker(Builder b) {
        this.tasks = b.client.tasks().withTimeout(b.requestTimeout);
        this.server = String.valueOf(b.client.baseUri());
        this.mapper = b.mapper != null ? b.mapper : b.client.mapper();
        this.handlers = Map.copyOf(b.handlers);
        this.handlerNames = List.copyOf(b.handlers.keySet());
        this.workerId = b.workerId != null ? b.workerId : "sdk-" + UUID.randomUUID().toString().substring(0, 8);
        this.pool = b.pool;
        this.concurrency = b.concurrency;
        this.waitSeconds = b.waitSeconds;
        this.maxHeartbeatInterval = b.maxHeartbeatInterval;
        this.backoffBase = b.backoffBase;
        this.backoffCap = b.backoffCap;
        this.reportTimeout = b.reportTimeout;
        this.defaultGrace = b.shutdownGrace;
        this.retryable = b.retryable;
        this.metrics = b.metrics;
        this.slots = new Semaphore(concurrency);
        this.maxUnreported = 2 * concurrency;
        AtomicInteger n = new AtomicInteger();
        this.handlerThreads = Executors.newFixedThreadPool(concurrency, r -> daemon(r, "ductor-task-" + workerId + "-" + n.incrementAndGet()));
        AtomicInteger m = new AtomicInteger();
        // Two reporters, each sending whatever finished meanwhile as one batch: while one batch waits on the server's
        // group commit (a disk flush), the next fills.
        this.reporters = Executors.newFixedThreadPool(REPORTERS, t -> daemon(t, "ductor-report-" + workerId + "-" + m.incrementAndGet()));
        // A heartbeat is a blocking request, and a worker holds up to about four leases a slot (running, waiting,
        // being reported): one thread per two slots keeps them on time when the server answers slowly.
        this.heartbeats = Executors.newScheduledThreadPool(Math.max(2, Math.min(32, concurrency / 2)),
                r -> daemon(r, "ductor-heartbeat-" + workerId));
    }

    public static Builder builder(DuctorClient client) {
        return new Builder(client);
    }

    public String workerId() {
        return workerId;
    }

    /**
     * Makes the first claim (it does not wait for work) and, once the server has answered it, starts claiming and
     * running tasks; returns this worker. The first claim needs the worker role, so it checks the server's address and
     * the token before anything runs.
     *
     * @throws WorkerStartException the server did not answer, or refused the token or its role: the message says
     *                              which. Nothing was started; {@code start()} may be called again.
     */
    public synchronized DuctorWorker start() {
        if (state != State.NEW) {
            throw new IllegalStateException("the worker was already started");
        }
        List<ClaimedTask> first;
        try {
            first = tasks.claim(handlerNames, pool, workerId, concurrency, 0);
        } catch (DuctorException e) {
            throw startFailure(e);
        }
        state = State.RUNNING;
        serverAnswers = true;
        for (ClaimedTask task : first) {
            claimed.incrementAndGet();
            metrics.claimed(task.handler());
            offer(task);
        }
        for (int i = 0; i < REPORTERS; i++) {
            reporters.execute(this::reportLoop);
        }
        claimer = new Thread(this::claimLoop, "ductor-claimer-" + workerId);
        claimer.start();
        LOG.info("Ductor worker {} started: handlers {}, concurrency {}, server {}", workerId, handlerNames, concurrency, server);
        return this;
    }

    private WorkerStartException startFailure(DuctorException e) {
        String cannot = "Ductor worker " + workerId + " cannot start: ";
        String message = switch (e.status()) {
            case 0 -> "no answer from the Ductor server at " + server + " (" + e.getMessage()
                    + "). Check the server's address and that it is running and reachable from here.";
            case 401 -> "the Ductor server at " + server + " refused the worker's token (401 Unauthorized: " + e.getMessage()
                    + "). Check the token: it must be signed by the key the server verifies with, for its issuer, and not expired.";
            case 403 -> "the worker's token is valid but lacks the worker role (403 Forbidden: " + e.getMessage()
                    + "). Use a token whose groups claim holds \"worker\".";
            case 503 -> "the Ductor server at " + server + " is unavailable (503: " + e.getMessage() + "). Try again later.";
            default -> "the Ductor server at " + server + " refused the first claim (" + e.status() + ": " + e.getMessage()
                    + "). Check the worker's handlers and pool.";
        };
        return new WorkerStartException(cannot + message, e);
    }

    /**
     * Whether the worker runs and its last claim was answered: true once {@link #start()} returned, false while claims
     * fail (the server is away) and after a shutdown began. For a readiness probe.
     */
    public boolean isReady() {
        return state == State.RUNNING && serverAnswers;
    }

    public WorkerStats stats() {
        return new WorkerStats(claimed.get(), completed.get(), failed.get(), leaseLost.get(), abandoned.get(), inFlight.size(),
                claimRequests.get(), reportRequests.get());
    }

    public boolean isRunning() {
        return state == State.RUNNING;
    }

    /** {@link #shutdown(Duration)} with the builder's grace period. */
    @Override
    public void close() {
        shutdown(defaultGrace);
    }

    /**
     * Stops claiming and waits up to {@code grace} for the running tasks to finish and be reported (heartbeating them
     * meanwhile); then cancels what is left without reporting it. Returns true when nothing was left.
     */
    public boolean shutdown(Duration grace) {
        synchronized (this) {
            if (state == State.NEW) {
                state = State.STOPPED;
                stopThreads();
                return true;
            }
            if (state != State.RUNNING) {
                return inFlight.isEmpty();
            }
            state = State.DRAINING;
        }
        handBackLine();
        long deadline = System.nanoTime() + grace.toNanos();
        LOG.info("Ductor worker {} shutting down: {} task(s) in flight, grace {}", workerId, inFlight.size(), grace);
        // The claimer finishes its long poll (cut short, the answer could be lost with the tasks it leased) and hands
        // back what it brings; both it and the running tasks are waited for within the grace.
        while (System.nanoTime() < deadline && (claimer.isAlive() || !inFlight.isEmpty())) {
            try {
                claimer.join(20);
                if (!claimer.isAlive()) {
                    synchronized (inFlight) {
                        if (!inFlight.isEmpty()) {
                            inFlight.wait(20);
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        claimer.interrupt();
        List<Execution> left = new ArrayList<>(inFlight);
        for (Execution execution : left) {
            abandoned.incrementAndGet();
            execution.cancel("the worker shut down before the task finished; it was handed back to the server", true);
            LOG.warn("task {} (run {}, node {}, attempt {}) still running at the end of the shutdown grace: cancelled, not"
                    + " reported, handed back for another worker", execution.task.taskId(), execution.task.runId(),
                    execution.task.node(), execution.task.attempt());
            handBack(execution.task);
        }
        synchronized (this) {
            state = State.STOPPED;
        }
        stopThreads();
        LOG.info("Ductor worker {} stopped ({} task(s) handed back unfinished)", workerId, left.size());
        return left.isEmpty();
    }

    private void stopThreads() {
        heartbeats.shutdownNow();
        handlerThreads.shutdownNow();
        reporters.shutdownNow();
    }

    // ---- claiming ----------------------------------------------------------------------------------------------

    private void claimLoop() {
        int errors = 0;
        while (state == State.RUNNING) {
            int free = room();
            if (free <= 0) {
                synchronized (room) {
                    try {
                        if (room() <= 0) {
                            room.wait(200);
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                continue;
            }
            List<ClaimedTask> batch;
            try {
                claimRequests.incrementAndGet();
                batch = tasks.claim(handlerNames, pool, workerId, free, waitSeconds);
                errors = 0;
                serverAnswers = true;
            } catch (DuctorException e) {
                serverAnswers = false;
                if (state != State.RUNNING || Thread.currentThread().isInterrupted()) {
                    return;
                }
                errors++;
                Duration delay = backoff(errors, e);
                LOG.warn("Ductor worker {}: claim failed ({}), trying again in {} ms", workerId, e.getMessage(), delay.toMillis());
                if (!pause(delay)) {
                    return;
                }
                continue;
            }
            if (state != State.RUNNING) {
                // The shutdown began while this poll waited: these would start after it, and may outlast its grace.
                batch.forEach(this::handBack);
                return;
            }
            for (ClaimedTask task : batch) {
                claimed.incrementAndGet();
                metrics.claimed(task.handler());
                offer(task);
            }
        }
    }

    /** How many tasks a claim may ask for: free slots nobody waits for, while the unreported results are bounded. */
    private int room() {
        return Math.min(slots.availablePermits() - waiting.get(), maxUnreported - unreported.get());
    }

    private void roomChanged() {
        synchronized (room) {
            room.notifyAll();
        }
    }

    /** Exponential with full jitter, at least the server's Retry-After; a 401/403/400 waits the longest. */
    private Duration backoff(int errors, DuctorException e) {
        long cap = backoffCap.toMillis();
        long ceiling = e.isTransient() ? Math.min(cap, backoffBase.toMillis() << Math.min(errors - 1, 20)) : cap;
        long delay = ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
        if (e instanceof ServerUnavailableException unavailable && unavailable.retryAfter() != null) {
            delay = Math.max(delay, unavailable.retryAfter().toMillis());
        }
        return Duration.ofMillis(delay);
    }

    private boolean pause(Duration delay) {
        long until = System.nanoTime() + delay.toNanos();
        while (state == State.RUNNING && System.nanoTime() < until) {
            try {
                Thread.sleep(Math.min(100, Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()))));
            } catch (InterruptedException e) {
                return false;
            }
        }
        return state == State.RUNNING;
    }

    // ---- running -----------------------------------------------------------------------------------------------

    /** A task leased to this worker: heartbeated from now on, run in the next free slot. */
    private void offer(ClaimedTask task) {
        Execution execution = new Execution(task);
        inFlight.add(execution);
        scheduleHeartbeat(execution, task.leaseExpiresAt());
        waiting.incrementAndGet();
        line.add(execution);
        drainLine();
    }

    /** Starts waiting tasks while slots are free; called after every offer and every freed slot, so none is missed. */
    private void drainLine() {
        while (!line.isEmpty() && slots.tryAcquire()) {
            Execution next = line.poll();
            if (next == null) {
                slots.release();
                return;
            }
            waiting.decrementAndGet();
            if (state != State.RUNNING || next.cancelled) {
                slots.release();
                drop(next, true);
                continue;
            }
            try {
                handlerThreads.execute(() -> runInSlot(next));
            } catch (RuntimeException rejected) {
                slots.release();
                drop(next, true); // stopped meanwhile: nothing ran
            }
        }
    }

    /** At the start of a shutdown: what waits for a slot has not begun, and goes back to the server at once. */
    private void handBackLine() {
        for (Execution waitingTask; (waitingTask = line.poll()) != null; ) {
            waiting.decrementAndGet();
            drop(waitingTask, true);
        }
    }

    /** The task is not run here: its lease ends now ({@code handBack}: given back to the server, no attempt spent). */
    private void drop(Execution execution, boolean handBack) {
        finish(execution);
        if (handBack && !execution.cancelled) {
            handBack(execution.task);
        }
    }

    /** Gives a task back to the server unfinished: queued again at once, no attempt spent. */
    private void handBack(ClaimedTask task) {
        try {
            tasks.release(task.taskId(), task.leaseToken());
            LOG.info("task {} (run {}, node {}, attempt {}) handed back unfinished", task.taskId(), task.runId(), task.node(),
                    task.attempt());
        } catch (ConflictException | NotFoundException lost) {
            LOG.debug("task {} not handed back: its lease was lost already ({})", task.taskId(), lost.getMessage());
        } catch (DuctorException e) {
            LOG.warn("task {} could not be handed back ({}); its lease will lapse and the server retries it", task.taskId(),
                    e.getMessage());
        }
    }

    /**
     * Runs the handler in the slot taken for it, frees the slot the moment it returns, and hands the result to a
     * reporter: the slot runs the next task while the report waits on the server's commit.
     */
    private void runInSlot(Execution execution) {
        Outcome outcome;
        try {
            outcome = runHandler(execution);
        } finally {
            slots.release();
            drainLine();
            roomChanged();
        }
        if (outcome == null) {
            finish(execution);
            return;
        }
        unreported.incrementAndGet();
        toReport.add(new Finished(execution, outcome));
    }

    /** A handler's outcome waiting to be reported. */
    private record Finished(Execution execution, Outcome outcome) {
    }

    /** A reporter: sends what finished meanwhile, up to {@link #MAX_BATCH} results a request, until the worker stops. */
    private void reportLoop() {
        List<Finished> batch = new ArrayList<>(MAX_BATCH);
        while (state != State.STOPPED) {
            try {
                Finished first = toReport.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                toReport.drainTo(batch, MAX_BATCH - 1);
                report(batch);
            } catch (InterruptedException e) {
                return;
            } finally {
                for (Finished finished : batch) {
                    finish(finished.execution());
                }
                unreported.addAndGet(-batch.size());
                batch.clear();
                roomChanged();
            }
        }
    }

    /**
     * The next tasks' handlers a report asks for: this worker's, while it runs, claims from no particular pool, and
     * fewer tasks wait for a slot than it has slots (a task leased now should not wait out its lease in line).
     */
    private List<String> nextWanted() {
        return state == State.RUNNING && pool == null && waiting.get() < concurrency ? handlerNames : List.of();
    }

    /** How many tasks a batched report may bring: room in the line, so that none waits out its lease there. */
    private int nextRoom() {
        return Math.max(0, concurrency - waiting.get());
    }

    /** A handler's result or failure, to report; {@code failure} null means {@code output} succeeded. */
    private record Outcome(JsonNode output, Throwable failure, boolean retry) {
    }

    /** Runs the handler; null when the attempt was cancelled meanwhile (its result is not to be sent). */
    private Outcome runHandler(Execution execution) {
        ClaimedTask task = execution.task;
        Registration registration = handlers.get(task.handler());
        execution.thread = Thread.currentThread();
        MDC.put("ductor.runId", task.runId());
        MDC.put("ductor.node", task.node());
        MDC.put("ductor.attempt", Integer.toString(task.attempt()));
        MDC.put("ductor.taskId", task.taskId());
        long started = System.nanoTime();
        Object output = null;
        Throwable failure = null;
        try {
            if (registration == null) {
                throw new NonRetryableException("no handler registered for " + task.handler());
            }
            Object input;
            try {
                JsonNode raw = task.input() == null ? NullNode.getInstance() : task.input();
                input = registration.inputType.getRawClass() == JsonNode.class ? raw : mapper.treeToValue(raw, registration.inputType);
            } catch (Exception unreadable) {
                throw new NonRetryableException("the task's input cannot be read as " + registration.inputType.toCanonical()
                        + ": " + unreadable.getMessage(), unreadable);
            }
            output = registration.handler.handle(input, execution);
        } catch (Throwable t) {
            failure = t;
        } finally {
            execution.thread = null;
            Thread.interrupted(); // a cancellation's interrupt must not reach the next task on this thread
        }
        try {
            String handler = task.handler();
            if (execution.cancelled) {
                metrics.handlerFinished(handler, "cancelled", System.nanoTime() - started);
                LOG.info("result of task {} discarded: {}", task.taskId(), execution.cancelReason);
                return null;
            }
            metrics.handlerFinished(handler, failure == null ? "success" : "failure", System.nanoTime() - started);
            if (failure == null) {
                try {
                    return new Outcome(output == null ? null : mapper.valueToTree(output), null, false);
                } catch (IllegalArgumentException unwritable) {
                    failure = new NonRetryableException("the handler's output cannot be written as JSON: "
                            + unwritable.getMessage(), unwritable);
                }
            }
            boolean retry = retryable.test(failure);
            LOG.info("task {} failed ({}retryable): {}", task.taskId(), retry ? "" : "not ", describe(failure));
            return new Outcome(null, failure, retry);
        } finally {
            MDC.remove("ductor.runId");
            MDC.remove("ductor.node");
            MDC.remove("ductor.attempt");
            MDC.remove("ductor.taskId");
        }
    }

    /**
     * Reports a batch in one request, again on transient errors within the report timeout; each result's outcome is
     * its own (a lost lease cancels that attempt alone), and the tasks leased with the answer go into the line.
     */
    private void report(List<Finished> batch) {
        List<Finished> live = new ArrayList<>(batch.size());
        List<TaskApi.Result> results = new ArrayList<>(batch.size());
        for (Finished finished : batch) {
            Execution execution = finished.execution();
            if (execution.cancelled) {
                LOG.info("result of task {} discarded: {}", execution.task.taskId(), execution.cancelReason);
                continue;
            }
            ClaimedTask task = execution.task;
            Outcome outcome = finished.outcome();
            live.add(finished);
            results.add(outcome.failure() == null ? TaskApi.Result.completed(task.taskId(), task.leaseToken(), outcome.output())
                    : TaskApi.Result.failed(task.taskId(), task.leaseToken(), describe(outcome.failure()), outcome.retry()));
        }
        if (live.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + reportTimeout.toNanos();
        for (int attempt = 1; ; attempt++) {
            TaskApi.Reported answer;
            try {
                List<String> next = nextWanted();
                reportRequests.incrementAndGet();
                answer = tasks.report(results, next, next.isEmpty() ? 0 : nextRoom());
            } catch (DuctorException e) {
                if (!e.isTransient() || System.nanoTime() > deadline || state == State.STOPPED) {
                    LOG.error("could not report {} task(s) ({}): their leases will run out and the server retries them",
                            live.size(), e.getMessage());
                    return;
                }
                Duration delay = backoff(attempt, e);
                LOG.warn("reporting {} task(s) failed ({}), trying again in {} ms", live.size(), e.getMessage(), delay.toMillis());
                try {
                    Thread.sleep(delay.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
                continue;
            }
            for (int i = 0; i < live.size(); i++) {
                Execution execution = live.get(i).execution();
                Outcome outcome = live.get(i).outcome();
                TaskApi.Outcome result = i < answer.outcomes().size() ? answer.outcomes().get(i) : null;
                if (result != null && result.recorded()) {
                    String handler = execution.task.handler();
                    if (outcome.failure() == null) {
                        completed.incrementAndGet();
                        metrics.completed(handler);
                    } else {
                        failed.incrementAndGet();
                        metrics.failed(handler, outcome.retry());
                    }
                } else {
                    leaseLost(execution, result == null ? "no outcome in the server's answer" : result.status() + ": " + result.detail());
                }
            }
            for (ClaimedTask task : answer.next()) {
                claimed.incrementAndGet();
                metrics.claimed(task.handler());
                if (state != State.RUNNING) {
                    handBack(task);
                } else {
                    offer(task);
                }
            }
            return;
        }
    }

    private void leaseLost(Execution execution, DuctorException e) {
        leaseLost(execution, e.getMessage());
    }

    private void leaseLost(Execution execution, String why) {
        if (!execution.cancelled) {
            leaseLost.incrementAndGet();
            metrics.leaseLost(execution.task.handler());
        }
        execution.cancel("lease lost: " + why, true);
        LOG.warn("task {} (run {}, node {}, attempt {}): lease lost, the handler is cancelled and its result will not be sent",
                execution.task.taskId(), execution.task.runId(), execution.task.node(), execution.task.attempt());
    }

    /** The task is done here (reported, dropped or handed back): no more heartbeats; a shutdown may stop waiting. */
    private void finish(Execution execution) {
        ScheduledFuture<?> beat = execution.heartbeat;
        if (beat != null) {
            beat.cancel(false);
        }
        execution.done = true;
        inFlight.remove(execution);
        synchronized (inFlight) {
            inFlight.notifyAll();
        }
    }

    // ---- heartbeats --------------------------------------------------------------------------------------------

    private void scheduleHeartbeat(Execution execution, Instant leaseExpiresAt) {
        execution.leaseExpiresAt = leaseExpiresAt;
        long remaining = Duration.between(Instant.now(), leaseExpiresAt).toMillis();
        long interval = Math.max(100, Math.min(remaining / 3, maxHeartbeatInterval.toMillis()));
        schedule(execution, interval);
    }

    private void schedule(Execution execution, long millis) {
        if (execution.done || execution.cancelled) {
            return;
        }
        try {
            execution.heartbeat = heartbeats.schedule(() -> beat(execution), millis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException stopped) {
            // the worker stopped: no more heartbeats
        }
    }

    private void beat(Execution execution) {
        if (execution.done || execution.cancelled) {
            return;
        }
        try {
            scheduleHeartbeat(execution, tasks.heartbeat(execution.task.taskId(), execution.task.leaseToken()));
        } catch (ConflictException lost) {
            if (!execution.done) {
                leaseLost(execution, lost);
            }
        } catch (NotFoundException gone) {
            // The row is gone (reaped and its result consumed): as lost as a 409 says.
            if (!execution.done) {
                leaseLost(execution, gone);
            }
        } catch (DuctorException e) {
            // No answer or a 5xx: the lease may still hold; look again soon, well before it ends.
            long remaining = Duration.between(Instant.now(), execution.leaseExpiresAt).toMillis();
            LOG.warn("heartbeat of task {} failed ({}); {} ms of lease left, trying again", execution.task.taskId(),
                    e.getMessage(), remaining);
            schedule(execution, Math.max(100, Math.min(1000, remaining / 4)));
        }
    }

    private static String describe(Throwable failure) {
        Throwable shown = failure;
        String text = shown.getClass().getName() + (shown.getMessage() == null ? "" : ": " + shown.getMessage());
        return text.length() > MAX_ERROR_LENGTH ? text.substring(0, MAX_ERROR_LENGTH) : text;
    }

    static boolean defaultRetryable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof NonRetryableException) {
                return false;
            }
        }
        return true;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread thread = new Thread(r, name);
        thread.setDaemon(true);
        return thread;
    }

    /** One attempt in flight; it is the handler's {@link TaskContext}. */
    private final class Execution implements TaskContext {

        final ClaimedTask task;
        volatile Thread thread;
        volatile boolean cancelled;
        volatile boolean done;
        volatile String cancelReason;
        volatile Instant leaseExpiresAt;
        volatile ScheduledFuture<?> heartbeat;
        private final List<Runnable> cancelListeners = new CopyOnWriteArrayList<>();

        Execution(ClaimedTask task) {
            this.task = task;
            this.leaseExpiresAt = task.leaseExpiresAt();
        }

        void cancel(String reason, boolean interrupt) {
            synchronized (this) {
                if (cancelled) {
                    return;
                }
                cancelReason = reason;
                cancelled = true;
            }
            ScheduledFuture<?> beat = heartbeat;
            if (beat != null) {
                beat.cancel(false);
            }
            for (Runnable listener : cancelListeners) {
                notify(listener);
            }
            Thread running = thread;
            if (interrupt && running != null) {
                running.interrupt();
            }
        }

        private void notify(Runnable listener) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.warn("a cancellation listener of task {} failed", task.taskId(), e);
            }
        }

        @Override
        public String taskId() {
            return task.taskId();
        }

        @Override
        public String runId() {
            return task.runId();
        }

        @Override
        public String node() {
            return task.node();
        }

        @Override
        public int attempt() {
            return task.attempt();
        }

        @Override
        public String handler() {
            return task.handler();
        }

        @Override
        public JsonNode rawInput() {
            return task.input();
        }

        @Override
        public Instant leaseExpiresAt() {
            return leaseExpiresAt;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public String cancelReason() {
            return cancelReason;
        }

        @Override
        public void onCancel(Runnable listener) {
            cancelListeners.add(listener);
            if (cancelled && cancelListeners.remove(listener)) {
                notify(listener);
            }
        }

        @Override
        public boolean isShuttingDown() {
            return state != State.RUNNING;
        }
    }

    /** Configuration: the client, at least one handler; the rest has defaults. */
    public static final class Builder {

        private final DuctorClient client;
        private final Map<String, Registration> handlers = new LinkedHashMap<>();
        private ObjectMapper mapper;
        private String workerId;
        private String pool;
        private int concurrency = 8;
        private int waitSeconds = 10;
        private Duration maxHeartbeatInterval = Duration.ofSeconds(10);
        private Duration requestTimeout = Duration.ofSeconds(10);
        private Duration backoffBase = Duration.ofMillis(200);
        private Duration backoffCap = Duration.ofSeconds(30);
        private Duration reportTimeout = Duration.ofMinutes(1);
        private Duration shutdownGrace = Duration.ofSeconds(30);
        private Predicate<Throwable> retryable = DuctorWorker::defaultRetryable;
        private WorkerMetrics metrics = WorkerMetrics.NONE;

        private Builder(DuctorClient client) {
            this.client = Objects.requireNonNull(client);
        }

        /**
         * Runs tasks of handler {@code ext:<name>} ({@code name} may carry the prefix already). The handler gets the
         * task's input, which the node's expressions evaluated on the server (its {@code input} template, with
         * {@code item} and {@code index} for a fan-out's item), read as {@code inputType} with the ObjectMapper: a
         * record such as {@code record Charge(String order, long cents)}, or {@code JsonNode.class} for the raw tree.
         * Its output is written with the ObjectMapper. An input that cannot be read fails the attempt, not retryable.
         */
        public <I, O> Builder handler(String name, Class<I> inputType, TaskHandler<I, O> handler) {
            return register(name, TypeFactory.defaultInstance().constructType(inputType), handler);
        }

        /** As {@link #handler(String, Class, TaskHandler)}, for a generic input type: {@code new TypeReference<List<Line>>() {}}. */
        public <I, O> Builder handler(String name, TypeReference<I> inputType, TaskHandler<I, O> handler) {
            return register(name, TypeFactory.defaultInstance().constructType(inputType), handler);
        }

        @SuppressWarnings("unchecked")
        private Builder register(String name, JavaType inputType, TaskHandler<?, ?> handler) {
            String full = name.startsWith("ext:") ? name : "ext:" + name;
            if (handlers.put(full, new Registration(full, inputType, (TaskHandler<Object, Object>) handler)) != null) {
                throw new IllegalArgumentException("a handler for " + full + " is already registered");
            }
            return this;
        }

        /** The mapper for task input and output (default: the client's). */
        public Builder objectMapper(ObjectMapper mapper) {
            this.mapper = mapper;
            return this;
        }

        /** Shows in the server's lease records (default: {@code sdk-} and a random suffix). */
        public Builder workerId(String workerId) {
            this.workerId = workerId;
            return this;
        }

        /** Claims only tasks of this pool. */
        public Builder pool(String pool) {
            this.pool = pool;
            return this;
        }

        /** Most tasks run at once (default 8); a claim asks for as many as there are free slots. */
        public Builder concurrency(int concurrency) {
            if (concurrency < 1 || concurrency > 100) {
                throw new IllegalArgumentException("concurrency must be 1 to 100");
            }
            this.concurrency = concurrency;
            return this;
        }

        /**
         * The long poll's wait when no task is due (0-30 s, default 10). A shutdown waits for the poll in flight, so
         * keep it below the shutdown grace.
         */
        public Builder pollWait(Duration wait) {
            long seconds = wait.toSeconds();
            if (seconds < 0 || seconds > 30) {
                throw new IllegalArgumentException("pollWait must be 0 to 30 seconds");
            }
            this.waitSeconds = (int) seconds;
            return this;
        }

        /** Heartbeats come at a third of the remaining lease, at most this far apart (default 10 s). */
        public Builder maxHeartbeatInterval(Duration interval) {
            this.maxHeartbeatInterval = interval;
            return this;
        }

        /** The longest wait for a heartbeat's or a report's answer, and added to the poll wait for a claim's (default 10 s). */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = timeout;
            return this;
        }

        /** Backoff after a failed claim or report: exponential from {@code base}, at most {@code cap}, jittered. */
        public Builder backoff(Duration base, Duration cap) {
            this.backoffBase = base;
            this.backoffCap = cap;
            return this;
        }

        /** How long a finished task's report is retried on transient errors (default 1 min). */
        public Builder reportTimeout(Duration timeout) {
            this.reportTimeout = timeout;
            return this;
        }

        /** The grace period of {@link DuctorWorker#close()} (default 30 s). */
        public Builder shutdownGrace(Duration grace) {
            this.shutdownGrace = grace;
            return this;
        }

        /** Decides whether a handler's exception lets the node retry (default: unless a NonRetryableException). */
        public Builder retryable(Predicate<Throwable> retryable) {
            this.retryable = retryable;
            return this;
        }

        /**
         * Counts claims, completions, failures and lease losses, and times handlers, in {@code registry}
         * ({@code ductor.worker.*}). Micrometer is an optional dependency: only needed when this is called.
         */
        public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.metrics = new MicrometerWorkerMetrics(registry);
            return this;
        }

        public DuctorWorker build() {
            if (handlers.isEmpty()) {
                throw new IllegalStateException("register at least one handler");
            }
            return new DuctorWorker(this);
        }
    }
}
