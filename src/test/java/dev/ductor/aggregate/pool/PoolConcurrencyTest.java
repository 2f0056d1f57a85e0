package dev.ductor.aggregate.pool;

import dev.ductor.support.Api;
import dev.ductor.aggregate.AggregateConflictException;
import dev.ductor.aggregate.AggregateKey;
import dev.ductor.aggregate.AggregateStore;
import dev.ductor.aggregate.core.AggregateEvent;
import dev.ductor.aggregate.core.PoolEvents;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static dev.ductor.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Editors and appenders racing on one pool: one wins each version, the others are told, nothing is lost or doubled. */
@QuarkusTest
@Tag("api")
class PoolConcurrencyTest {

    @Inject
    DevTokenIssuer issuer;

    @Inject
    AggregateStore store;

    @Inject
    PoolService pools;

    @Inject
    PoolProjection projection;

    /** The application's own PostgreSQL, used only to hold the pool's row lock while editors pile up. */
    @Inject
    DataSource dataSource;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(issuer);
    }

    /**
     * Two clients read version 1 and both send an edit based on it. To make the edits really overlap, a plain
     * JDBC transaction holds the pool's projection row while they arrive: the first appends its event and
     * waits for the row, the second waits on the first's append; then the row is let go.
     */
    @Test
    void twoClientsEditingTheSamePoolConcurrentlyOneWinsTheOtherGets409WithBothVersions() throws Exception {
        String name = unique("gpu");
        api.createPool(name, 3, false);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        List<HttpResponse<String>> responses = new ArrayList<>();
        try (Connection lock = dataSource.getConnection()) {
            lock.setAutoCommit(false);
            try (PreparedStatement select = lock.prepareStatement("SELECT 1 FROM eec_pool WHERE tenant = ? AND name = ? FOR UPDATE")) {
                select.setString(1, api.tenant);
                select.setString(2, name);
                select.executeQuery().close();
            }
            Future<HttpResponse<String>> five = threads.submit(() -> api.putPoolConcurrently(client, name, "{\"capacity\": 5}", "\"1\""));
            Future<HttpResponse<String>> six = threads.submit(() -> api.putPoolConcurrently(client, name, "{\"capacity\": 6}", "\"1\""));
            awaitLockWaiters(lock, 2, Duration.ofSeconds(15));
            lock.rollback();
            responses.add(five.get(30, TimeUnit.SECONDS));
            responses.add(six.get(30, TimeUnit.SECONDS));
        } finally {
            threads.shutdownNow();
        }

        String all = responses.stream().map(r -> r.statusCode() + " " + r.body()).collect(Collectors.joining("\n"));
        assertEquals(List.of(200, 409), responses.stream().map(HttpResponse::statusCode).sorted().toList(), all);
        HttpResponse<String> winner = responses.stream().filter(r -> r.statusCode() == 200).findFirst().orElseThrow();
        HttpResponse<String> loser = responses.stream().filter(r -> r.statusCode() == 409).findFirst().orElseThrow();
        int won = JsonPath.from(winner.body()).getInt("capacity");
        assertEquals("\"2\"", winner.headers().firstValue("ETag").orElse(null));

        assertTrue(loser.headers().firstValue("Content-Type").orElse("").startsWith(Api.PROBLEM_JSON), loser::body);
        JsonPath problem = JsonPath.from(loser.body());
        assertTrue(problem.getString("detail").contains("NOT saved"), loser.body());
        assertEquals(1, problem.getInt("expectedVersion"), "the version the loser sent");
        assertEquals(2, problem.getInt("currentVersion"), "the version the winner made");
        assertEquals(2, problem.getInt("current.version"));
        assertEquals(won, problem.getInt("current.capacity"), "current is the winner's pool, read afresh");
        assertEquals(won == 5 ? 6 : 5, problem.getInt("rejected.capacity"), "rejected is what the loser sent");

        assertEquals(List.of(1L, 2L), versions(api.tenant, name));
        assertEquals(2, projection(api.tenant, name), "the projection moved once, with the winner");
    }

    @Test
    void concurrentCreatorsOfOnePoolStoreOneAndTheOthersAreRefused() throws Exception {
        String name = unique("gpu");
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        int creators = 8;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(creators);
        List<HttpResponse<String>> responses = new ArrayList<>();
        try {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < creators; i++) {
                int capacity = i + 1;
                futures.add(threads.submit(() -> {
                    go.await();
                    return api.putPoolConcurrently(client, name, "{\"capacity\": " + capacity + "}", null);
                }));
            }
            go.countDown();
            for (Future<HttpResponse<String>> future : futures) {
                responses.add(future.get(30, TimeUnit.SECONDS));
            }
        } finally {
            threads.shutdownNow();
        }

        String all = responses.stream().map(r -> r.statusCode() + " " + r.body()).collect(Collectors.joining("\n"));
        assertEquals(1, responses.stream().filter(r -> r.statusCode() == 201).count(), all);
        // A loser that overlapped the winner's append hears 409; one that came after it is updating without
        // If-Match, 428. Both say nothing was saved; none may be an error.
        assertTrue(responses.stream().allMatch(r -> r.statusCode() == 201 || r.statusCode() == 409 || r.statusCode() == 428), all);
        responses.stream().filter(r -> r.statusCode() == 409).forEach(r ->
                assertEquals(1, JsonPath.from(r.body()).getInt("current.version"), r.body()));
        assertEquals(List.of(1L), versions(api.tenant, name));
        assertEquals(1, projection(api.tenant, name));
    }

    /**
     * A hundred threads append one event each to one stream at once, each retrying on conflict with the
     * version read afresh until its append lands: exactly versions 1..100, one event per thread.
     */
    @Test
    void aHundredConcurrentAppendsToOneAggregateLeaveAGapFreeVersionSequence() throws Exception {
        AggregateKey key = new AggregateKey("test-counter", "t-" + unique("append"), "counter");
        int appenders = 100;
        AtomicInteger conflicts = new AtomicInteger();
        runAll(appenders, i -> {
            while (true) {
                try {
                    QuarkusTransaction.requiringNew().run(() ->
                            store.append(key, store.version(key), List.of(PoolEvents.capacityChanged(0, i)), "appender-" + i));
                    return;
                } catch (AggregateConflictException lost) {
                    conflicts.incrementAndGet();
                }
            }
        });

        List<AggregateEvent> events = QuarkusTransaction.requiringNew().call(() -> store.load(key));
        System.out.printf("aggregate appends: %d appenders, %d conflicts retried%n", appenders, conflicts.get());
        assertEquals(LongStream.rangeClosed(1, appenders).boxed().toList(), events.stream().map(AggregateEvent::version).toList());
        assertEquals(appenders, events.stream().map(AggregateEvent::recordedBy).distinct().count(), "every appender's event, once");
        assertTrue(conflicts.get() > 0, "a hundred appenders at once must have collided at least once");
    }

    /** The same through the pool service: a hundred editors, each retrying from the version it reads. */
    @Test
    void aHundredConcurrentEditorsOfOnePoolEachLandOnceAndTheProjectionFollows() throws Exception {
        String tenant = "t-" + unique("edit");
        String name = unique("gpu");
        pools.put(tenant, name, 0, false, OptionalLong.empty(), "test", null);
        int editors = 100;
        runAll(editors, i -> {
            while (true) {
                try {
                    long read = pools.get(tenant, name).version();
                    pools.put(tenant, name, i + 1, null, OptionalLong.of(read), "editor-" + i, null);
                    return;
                } catch (AggregateConflictException | dev.ductor.error.VersionConflictException lost) {
                    // someone else's edit landed first: read again
                }
            }
        });

        PoolView pool = pools.get(tenant, name);
        List<AggregateEvent> events = pools.events(tenant, name);
        assertEquals(LongStream.rangeClosed(1, editors + 1).boxed().toList(), events.stream().map(AggregateEvent::version).toList());
        assertEquals(editors + 1, pool.version());
        assertEquals(editors + 1, projection(tenant, name), "the projection is at the stream's version");
        assertEquals(events.get(editors).payload().get("to").intValue(), pool.capacity(), "the last edit is the capacity");
        for (int i = 1; i < events.size(); i++) {
            assertEquals(events.get(i - 1).version() == 1 ? 0 : events.get(i - 1).payload().get("to").intValue(),
                    events.get(i).payload().get("from").intValue(), "each change starts from the one before");
        }
    }

    private interface Task {
        void run(int index) throws Exception;
    }

    private static void runAll(int threads, Task task) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Object>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int index = i;
                Callable<Object> call = () -> {
                    go.await();
                    task.run(index);
                    return null;
                };
                futures.add(executor.submit(call));
            }
            go.countDown();
            for (Future<Object> future : futures) {
                future.get(120, TimeUnit.SECONDS);
            }
        } finally {
            executor.shutdownNow();
        }
    }

    private List<Long> versions(String tenant, String name) {
        return pools.events(tenant, name).stream().map(AggregateEvent::version).toList();
    }

    private long projection(String tenant, String name) {
        return QuarkusTransaction.requiringNew().call(() -> projection.version(tenant, name));
    }

    private static void awaitLockWaiters(Connection connection, int count, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        try (PreparedStatement waiting = connection.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()")) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = waiting.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) >= count) {
                        return;
                    }
                }
                Thread.sleep(20);
            }
        }
        assertFalse(true, "the two editors never both waited on a lock");
    }
}
