package dev.ductor.worker;

import com.sun.net.httpserver.HttpServer;
import dev.ductor.config.PodIdentity;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.support.Fixtures;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A step with an external effect (an http call) never starts on a lease this pod no longer holds, and stops when a
 * heartbeat finds it lost. The tasks are leased to this pod the way eager dispatch leases them, for a node that
 * waits behind a signal which never comes, so nothing else in the run moves.
 */
@QuarkusTest
@Tag("db")
class StaleLeaseStepTest {

    private static final String TENANT = "stale-lease";

    @Inject
    Fixtures fixtures;

    @Inject
    InProcessWorker worker;

    @Inject
    QueueRepository queue;

    @Inject
    LeaseReaper reaper;

    @Inject
    PodIdentity pod;

    @Inject
    Clock clock;

    @Inject
    dev.ductor.aggregate.pool.PoolService pools;

    private final AtomicInteger calls = new AtomicInteger();
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch answer = new CountDownLatch(1);
    private HttpServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/charge", exchange -> {
            calls.incrementAndGet();
            arrived.countDown();
            try {
                answer.await(60, TimeUnit.SECONDS); // a slow service: answers when the test says so
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
    }

    @AfterEach
    void stopServer() {
        answer.countDown();
        server.stop(0);
    }

    /** A run whose http node is never dispatched by the run itself, and a task row for it leased to this pod. */
    private QueueItem leasedHttpTask(Instant now) {
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/charge";
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"never\"},"
                + "{\"id\":\"call\",\"type\":\"task\",\"handler\":\"http\",\"dependsOn\":[\"gate\"],"
                + "\"input\":{\"url\":\"${{ input.url }}\",\"method\":\"POST\"}}]}");
        UUID runId = fixtures.start(TENANT, workflow);
        NewQueueItem task = NewQueueItem.task(TENANT, "standard", runId, "call", 1, "http", null,
                "{\"url\":\"" + url + "\",\"method\":\"POST\"}", now);
        List<QueueItem> leased = QuarkusTransaction.requiringNew().call(() ->
                queue.enqueueLeased(List.of(task), pod.name(), Duration.ofSeconds(30), now));
        assertEquals(1, leased.size());
        return leased.get(0);
    }

    /**
     * Hands the task to the worker as a commit that leased it would: a slot reserved, then the lease handed over. A
     * reservation never waits, and the steps of earlier tests or the promises of commits may take every free slot for
     * a moment: the test, like a commit, takes a slot when one is free, trying again meanwhile.
     */
    private void run(QueueItem task) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        dev.ductor.run.LocalSteps.Reservation slot;
        while ((slot = worker.reserveFor(List.of(NewQueueItem.task(TENANT, "standard", task.runId(), task.nodeId(),
                task.attempt(), task.handler(), null, "{}", clock.instant())), clock.instant())).slots() == 0
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(1, slot.slots(), "a free slot");
        worker.handOver(slot, List.of(task));
    }

    private void awaitStepEnded(QueueItem task) throws InterruptedException {
        awaitStepEnded(task, 30);
    }

    private void awaitStepEnded(QueueItem task, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (worker.isRunning(task.id()) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(!worker.isRunning(task.id()), "the step never ended");
    }

    @Test
    void aStepWhoseLeaseWasReapedWhileThePodWasFrozenIsNotStarted() throws Exception {
        Instant leasedAt = clock.instant();
        QueueItem task = leasedHttpTask(leasedAt);
        // The pod froze (a GC pause, SIGSTOP) before the step started; another pod reaped the lease at its end. The pod
        // resumes believing it has most of its 30 s left: its own reckoning (a clock that ran behind the database's,
        // or a freeze after it looked) is not what decides who owns the lease.
        assertTrue(reaper.runOnce(leasedAt.plus(Duration.ofSeconds(31))) >= 1, "the lease was reaped");

        run(task);
        awaitStepEnded(task);

        assertEquals(0, calls.get(), "the http call of a lease already lost was made");
    }

    @Test
    void aStepWhoseLeaseIsLostWhileItRunsIsStoppedAndReportsNothing() throws Exception {
        QueueItem task = leasedHttpTask(clock.instant());
        run(task);
        assertTrue(arrived.await(30, TimeUnit.SECONDS), "the call was made");

        // An operator retried the node meanwhile: the lease is revoked, the next heartbeat finds it lost.
        QuarkusTransaction.requiringNew().run(() -> queue.supersedeTasks(task.runId(), "call", 1));
        // The service answers only once the test ends, and the http step's own cap (ductor.http.max-time, 30 s) would
        // end the call 30 s after it began: a step that ends within 15 s was stopped by the heartbeat (every lease/3,
        // 10 s) that found the lease lost.
        awaitStepEnded(task, 15);

        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE task_id = ?1", task.id()),
                "nothing was reported for the lost attempt");
    }

    /**
     * A step leased here whose lease has too little left to finish in is handed back to the queue at once, for any pod,
     * without spending an attempt (finding 6 of the review at 8269a5d: it was left to run out, and the reaper then
     * recorded a failed attempt, which by default fails the run). Its task is in a paused pool, so no claim takes it
     * again before the test has looked.
     */
    @Test
    void aStepWithTooLittleLeaseLeftIsHandedBackWithoutSpendingAnAttempt() throws Exception {
        String workflow = fixtures.define(TENANT, "{\"nodes\":[{\"id\":\"gate\",\"type\":\"signal\",\"signal\":\"never\"},"
                + "{\"id\":\"step\",\"type\":\"task\",\"handler\":\"noop\",\"dependsOn\":[\"gate\"]}]}");
        QuarkusTransaction.requiringNew().run(() -> pools.put(TENANT, "held", 1, true, java.util.OptionalLong.empty(), "test",
                null));
        UUID runId = fixtures.start(TENANT, workflow);
        Instant now = clock.instant();
        NewQueueItem item = NewQueueItem.task(TENANT, "standard", runId, "step", 1, "noop", "held", "{}", now);
        QueueItem task = QuarkusTransaction.requiringNew().call(() ->
                queue.enqueueLeased(List.of(item), pod.name(), Duration.ofMillis(500), now)).get(0);

        run(task);
        awaitStepEnded(task);

        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_queue_item WHERE id = ?1 AND lease_token IS NULL",
                task.id()), "the task is back in the queue, unleased, for any pod");
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE task_id = ?1", task.id()),
                "no attempt was spent on it");
    }
}
