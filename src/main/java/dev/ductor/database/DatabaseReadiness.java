package dev.ductor.database;

import io.agroal.api.AgroalDataSource;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Readiness says DOWN within a second of PostgreSQL becoming unreachable, however it fails: refused at once, or a
 * network that swallows packets, where a connection attempt waits for the driver's connect timeout (10 s). Replaces
 * Quarkus' datasource check ({@code quarkus.datasource.health.enabled=false}), which takes a pooled connection and
 * so waits as long as the pool does.
 *
 * <p>Each probe opens one new connection outside the pool (so a pool busy with traffic never makes a pod look
 * unready) on a thread of its own and waits for it at most {@link #BOUND}; a probe still hanging is reused by the
 * next call rather than piling up threads.
 */
@Readiness
@ApplicationScoped
public class DatabaseReadiness implements HealthCheck {

    static final Duration BOUND = Duration.ofMillis(800);
    private static final String NAME = "Database connections health check";

    @Inject AgroalDataSource dataSource;

    private final ExecutorService prober = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "ductor-db-readiness");
        thread.setDaemon(true);
        return thread;
    });
    private CompletableFuture<Boolean> pending;

    @Override
    public HealthCheckResponse call() {
        CompletableFuture<Boolean> probe = probe();
        try {
            boolean healthy = probe.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
            return healthy ? HealthCheckResponse.named(NAME).up().withData("<default>", "UP").build()
                    : down("the validation query failed");
        } catch (TimeoutException slow) {
            return down("no answer from the database within " + BOUND.toMillis() + " ms");
        } catch (ExecutionException failed) {
            return down(String.valueOf(failed.getCause().getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return down("interrupted");
        }
    }

    private synchronized CompletableFuture<Boolean> probe() {
        if (pending == null || pending.isDone()) {
            pending = CompletableFuture.supplyAsync(() -> {
                try {
                    return dataSource.isHealthy(true);
                } catch (java.sql.SQLException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            }, prober);
        }
        return pending;
    }

    private static HealthCheckResponse down(String why) {
        return HealthCheckResponse.named(NAME).down().withData("<default>", why).build();
    }

    @PreDestroy
    void stop() {
        prober.shutdownNow();
    }
}
