package dev.ductor.aggregate.pool;

import dev.ductor.support.Api;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.TaskClaim;
import dev.ductor.queue.TierWeights;
import dev.ductor.support.ManualCoordination;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The task claim against pools, on real PostgreSQL, with no background workers: the test alone claims. Each
 * test has a handler and tenant of its own, so it sees only its own tasks.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("db")
class PoolClaimTest {

    private static final Duration LEASE = Duration.ofMinutes(5);
    /** The default weights as the claim inlines them (TierWeights renders them only inside its package). */
    private static final String TIER_WEIGHTS_SQL = "('bulk', 1.0), ('interactive', 8.0), ('standard', 4.0)";

    @Inject
    QueueRepository queue;


    @Inject

    TaskClaim claim;

    @Inject
    PoolService pools;

    @Inject
    TierWeights weights;

    @Inject
    EntityManager em;

    @Inject
    Clock clock;

    String tenant;
    String handler;

    @BeforeEach
    void setUp() {
        tenant = Api.unique("t");
        handler = "ext:" + Api.unique("pooled");
    }

    // --- helpers ---------------------------------------------------------------------------------------------

    private void enqueue(String tenant, String tier, String pool, int count) {
        QuarkusTransaction.requiringNew().run(() -> {
            List<NewQueueItem> items = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                items.add(NewQueueItem.task(tenant, tier, UUID.randomUUID(), "n", 1, handler, pool, "{}", clock.instant()));
            }
            queue.enqueue(items, clock.instant());
        });
    }

    private void enqueue(String pool, int count) {
        enqueue(tenant, "standard", pool, count);
    }

    private List<QueueItem> claim(int max) {
        return claim(null, null, max);
    }

    private List<QueueItem> claim(String workerTenant, String pool, int max) {
        return QuarkusTransaction.requiringNew().call(() -> claim.claimTasks(Set.of(handler), workerTenant, pool, "pool-test",
                max, LEASE, clock.instant(), weights));
    }

    private void complete(List<QueueItem> tasks) {
        QuarkusTransaction.requiringNew().run(() -> tasks.forEach(t -> assertTrue(queue.ack(t.id(), t.leaseToken()))));
    }

    private void define(String pool, int capacity, boolean paused) {
        define(tenant, pool, capacity, paused);
    }

    private void define(String tenant, String pool, int capacity, boolean paused) {
        OptionalLong version = pools.find(tenant, pool).map(p -> OptionalLong.of(p.version())).orElse(OptionalLong.empty());
        pools.put(tenant, pool, capacity, paused, version, "test", null);
    }

    private long leased(String pool) {
        return ((Number) em.createNativeQuery("""
                        SELECT count(*) FROM eec_queue_item
                         WHERE kind = 'TASK' AND lease_token IS NOT NULL AND tenant = ?1 AND pool = ?2""")
                .setParameter(1, tenant).setParameter(2, pool).getSingleResult()).longValue();
    }

    private long leasedNow(String pool) {
        return QuarkusTransaction.requiringNew().call(() -> leased(pool));
    }

    // --- semantics -------------------------------------------------------------------------------------------

    @Test
    void aTaskWhosePoolIsNotDefinedIsNotClaimedUntilThePoolIsDefined() {
        enqueue("gpu", 3);

        assertEquals(0, claim(10).size(), "no pool, no dispatch");

        define("gpu", 2, false);
        assertEquals(2, claim(10).size());
    }

    @Test
    void aPausedPoolDispatchesNothingAndResumingDispatches() {
        define("gpu", 5, true);
        enqueue("gpu", 3);

        assertEquals(0, claim(10).size(), "paused");
        assertEquals(0, claim(10).size(), "still paused");

        define("gpu", 5, false);
        assertEquals(3, claim(10).size(), "resumed: the next claim takes them");
    }

    @Test
    void pausingStopsFurtherClaimsButTakesNothingBack() {
        define("gpu", 5, false);
        enqueue("gpu", 6);
        List<QueueItem> first = claim(2);
        assertEquals(2, first.size());

        define("gpu", 5, true);

        assertEquals(0, claim(10).size());
        assertEquals(2, leasedNow("gpu"), "the leases already handed out run on");
        complete(first);
        define("gpu", 5, false);
        assertEquals(4, claim(10).size());
    }

    @Test
    void capacityCapsTheLeasesOfAPoolAndAChangeTakesEffectAtTheNextClaim() {
        define("gpu", 2, false);
        enqueue("gpu", 10);

        List<QueueItem> held = new ArrayList<>(claim(10));
        assertEquals(2, held.size(), "capacity 2");
        assertEquals(0, claim(10).size(), "full");

        define("gpu", 5, false);
        List<QueueItem> more = claim(10);
        assertEquals(3, more.size(), "raised to 5: three more at once");
        held.addAll(more);
        assertEquals(5, leasedNow("gpu"));

        define("gpu", 1, false);
        assertEquals(0, claim(10).size(), "lowered to 1 with 5 leased");
        complete(held.subList(0, 4));
        assertEquals(0, claim(10).size(), "1 leased of 1");
        complete(held.subList(4, 5));
        assertEquals(1, claim(10).size(), "room for one again");
    }

    @Test
    void completingATaskFreesItsPlaceForTheNextClaim() {
        define("gpu", 1, false);
        enqueue("gpu", 3);
        for (int i = 0; i < 3; i++) {
            List<QueueItem> one = claim(5);
            assertEquals(1, one.size());
            assertEquals(0, claim(5).size());
            complete(one);
        }
        assertEquals(0, claim(5).size(), "all three done");
    }

    @Test
    void capacityZeroDispatchesNothing() {
        define("gpu", 0, false);
        enqueue("gpu", 2);

        assertEquals(0, claim(10).size());
    }

    @Test
    void poolsBelongToTheirTenant() {
        String other = Api.unique("t");
        define("gpu", 5, false);
        enqueue(other, "standard", "gpu", 2);
        enqueue("gpu", 2);

        List<QueueItem> claimed = claim(10);

        assertEquals(2, claimed.size(), "only the tenant that defined 'gpu' has one");
        assertTrue(claimed.stream().allMatch(t -> t.tenant().equals(tenant)));
        define(other, "gpu", 1, false);
        List<QueueItem> theirs = claim(10);
        assertEquals(1, theirs.size(), "the other tenant's own pool of 1");
        assertEquals(other, theirs.get(0).tenant());
    }

    @Test
    void aFullPoolDoesNotHoldBackUnpooledTasksOrOtherPools() {
        define("gpu", 2, false);
        define("cpu", 3, false);
        enqueue("gpu", 10);
        enqueue(null, 3);
        enqueue("cpu", 10);

        List<QueueItem> claimed = claim(20);

        Map<String, Integer> byPool = new HashMap<>();
        claimed.forEach(t -> byPool.merge(String.valueOf(t.pool()), 1, Integer::sum));
        assertEquals(Map.of("gpu", 2, "cpu", 3, "null", 3), byPool);
        List<QueueItem> next = claim(20);
        assertEquals(0, next.size(), "both pools full, no unpooled left");
        enqueue(null, 4);
        assertEquals(4, claim(20).size(), "unpooled tasks go on while the pools are full");
    }

    @Test
    void aWorkerAskingForOnePoolGetsOnlyItsTasksWithinItsCapacity() {
        define("gpu", 2, false);
        define("cpu", 5, false);
        enqueue("gpu", 5);
        enqueue("cpu", 5);
        enqueue(null, 5);

        List<QueueItem> claimed = claim(tenant, "gpu", 10);

        assertEquals(2, claimed.size());
        assertTrue(claimed.stream().allMatch(t -> "gpu".equals(t.pool())));
        assertEquals(0, claim(tenant, "gpu", 10).size());
        assertEquals(0, claim(Api.unique("t"), "cpu", 10).size(), "an external worker sees its own tenant only");
    }

    @Test
    void pooledTasksShareClaimsByTierWeightLikeAnyOthers() {
        define("gpu", 10_000, false);
        enqueue(tenant, "interactive", "gpu", 300);
        enqueue(tenant, "bulk", "gpu", 300);
        enqueue(Api.unique("t"), "standard", null, 300);

        Map<String, Integer> byTier = new HashMap<>();
        for (int i = 0; i < 260; i++) {
            claim(1).forEach(t -> byTier.merge(t.tier(), 1, Integer::sum));
        }

        System.out.printf("pools: tier shares over 260 claims, pooled interactive and bulk, unpooled standard"
                + " (weights 8:4:1, expected 160:80:20): %s%n", byTier);
        assertTrue(byTier.getOrDefault("interactive", 0) >= 125, byTier.toString());
        assertTrue(byTier.getOrDefault("standard", 0) >= 50 && byTier.getOrDefault("standard", 0) <= 115, byTier.toString());
        assertTrue(byTier.getOrDefault("bulk", 0) >= 3 && byTier.getOrDefault("bulk", 0) <= 40, byTier.toString());
    }

    // --- concurrency -----------------------------------------------------------------------------------------

    /**
     * Sixteen claimers at once, with batches of 1 to 3, holding each task a few milliseconds: the pool's
     * leases never exceed its capacity, checked three ways: inside every claim's own transaction just before it
     * commits (it holds the pool's lock then, so that count is what it commits), by a sampler counting committed
     * leases every two milliseconds, and by the claimers' own count of what they hold.
     */
    @Test
    void manyConcurrentClaimersNeverLeaseMoreThanTheCapacity() throws Exception {
        int capacity = 4;
        int tasks = 240;
        int claimers = 16;
        define("gpu", capacity, false);
        enqueue("gpu", tasks);
        AtomicLong peakAtCommit = new AtomicLong();
        AtomicLong peakSampled = new AtomicLong();
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger peakHeld = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicLong samples = new AtomicLong();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        AtomicBoolean running = new AtomicBoolean(true);

        Thread sampler = new Thread(() -> {
            while (running.get()) {
                peakSampled.accumulateAndGet(leasedNow("gpu"), Math::max);
                samples.incrementAndGet();
                sleep(2);
            }
        }, "lease-sampler");
        sampler.start();
        ExecutorService executor = Executors.newFixedThreadPool(claimers);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int c = 0; c < claimers; c++) {
                String owner = "claimer-" + c;
                futures.add(executor.submit(() -> {
                    while (done.get() < tasks) {
                        int max = ThreadLocalRandom.current().nextInt(1, 4);
                        List<QueueItem> claimed = QuarkusTransaction.requiringNew().call(() -> {
                            List<QueueItem> got = claim.claimTasks(Set.of(handler), null, null, owner, max, LEASE,
                                    clock.instant(), weights);
                            peakAtCommit.accumulateAndGet(leased("gpu"), Math::max);
                            return got;
                        });
                        if (claimed.isEmpty()) {
                            sleep(1);
                            continue;
                        }
                        claimed.forEach(t -> assertTrue(seen.add(t.id()), "task " + t.id() + " handed out twice"));
                        peakHeld.accumulateAndGet(holding.addAndGet(claimed.size()), Math::max);
                        sleep(ThreadLocalRandom.current().nextInt(2, 12));
                        holding.addAndGet(-claimed.size());
                        complete(claimed);
                        done.addAndGet(claimed.size());
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(180, TimeUnit.SECONDS);
            }
        } finally {
            executor.shutdownNow();
            running.set(false);
            sampler.join(10_000);
        }

        System.out.printf("pools: %d claimers, capacity %d, %d tasks: peak leased at commit %d, sampled %d (%d samples),"
                + " held %d%n", claimers, capacity, tasks, peakAtCommit.get(), peakSampled.get(), samples.get(), peakHeld.get());
        assertEquals(tasks, seen.size(), "every task claimed once");
        assertTrue(peakAtCommit.get() <= capacity, "leases at a claim's commit: " + peakAtCommit.get());
        assertTrue(peakSampled.get() <= capacity, "committed leases sampled: " + peakSampled.get());
        assertTrue(peakHeld.get() <= capacity, "tasks held by the claimers at once: " + peakHeld.get());
        assertEquals(capacity, peakAtCommit.get(), "sixteen claimers must have filled the pool");
        assertEquals(0, leasedNow("gpu"));
    }

    // --- cost ------------------------------------------------------------------------------------------------

    /**
     * A paused pool with a big backlog: the claims of everything else walk indexes, never the table, and never
     * that backlog (pooled tasks are not in the fair claim's index; the pool probe skips per pool).
     */
    @Test
    void aPausedPoolsBacklogCostsOtherClaimsNothing() {
        int backlog = 200_000;
        String pausedTenant = Api.unique("t");
        define(pausedTenant, "archive", 1, true);
        define("gpu", 2, false);
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("""
                        INSERT INTO eec_queue_item (kind, tenant, tier, run_id, node_id, attempt, handler, pool, task_key,
                                                    available_at, created_at)
                        SELECT 'TASK', ?1, 'bulk', gen_random_uuid(), 'n', 1, ?2, 'archive', 'plan-task:' || gen_random_uuid(),
                               now() - interval '1 hour', now()
                          FROM generate_series(1, ?3)""")
                .setParameter(1, pausedTenant).setParameter(2, handler).setParameter(3, backlog).executeUpdate());
        try {
            QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("ANALYZE eec_queue_item").executeUpdate());
            enqueue("gpu", 3);
            enqueue(null, 3);
            Instant now = clock.instant();
            String filters = new TaskClaim.Filters(handler, null, null).sql();

            String lockPlan = explain(TaskClaim.poolLockSql(filters), "now", now, "handlers", handler);
            System.out.println("pool lock plan with a paused backlog of " + backlog + ":\n" + lockPlan);
            assertTrue(lockPlan.contains("ix_queue_item_pooled_tasks"), lockPlan);
            assertTrue(!lockPlan.contains("Seq Scan on eec_queue_item"), lockPlan);

            String claimPlan = explain(TaskClaim.pooledTaskClaimSql(filters, TIER_WEIGHTS_SQL), "now", now, "max", 1,
                    "leaseExpiry", now.plusSeconds(30), "owner", "plan", "handlers", handler,
                    "lockedPools", "[{\"tenant\": \"" + tenant + "\", \"pool\": \"gpu\"}]");
            System.out.println("pooled claim plan:\n" + claimPlan);
            assertTrue(claimPlan.contains("ix_queue_item_pooled_tasks"), claimPlan);
            assertTrue(claimPlan.contains("ix_queue_item_fair_tasks"), claimPlan);
            assertTrue(!claimPlan.contains("Seq Scan on eec_queue_item"), claimPlan);
            assertTrue(!claimPlan.contains("ix_queue_item_claim"), "the pooled tasks must be read pool by pool:\n" + claimPlan);

            long started = System.nanoTime();
            List<QueueItem> claimed = claim(10);
            System.out.printf("pools: a claim beside a paused backlog of %d took %.2f ms (not asserted)%n", backlog,
                    (System.nanoTime() - started) / 1e6);
            assertEquals(5, claimed.size(), "2 of the open pool, 3 unpooled, none of the paused one");
        } finally {
            QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("DELETE FROM eec_queue_item WHERE tenant = ?1")
                    .setParameter(1, pausedTenant).executeUpdate());
        }
    }

    @SuppressWarnings("unchecked")
    private String explain(String sql, Object... params) {
        return QuarkusTransaction.requiringNew().call(() -> {
            var query = em.createNativeQuery("EXPLAIN " + sql);
            for (int i = 0; i < params.length; i += 2) { // name, value, name, value...
                query.setParameter((String) params[i], params[i + 1]);
            }
            return String.join("\n", ((List<Object>) query.getResultList()).stream().map(Object::toString).toList());
        });
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
