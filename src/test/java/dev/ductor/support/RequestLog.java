package dev.ductor.support;

import io.quarkus.vertx.http.runtime.filters.Filters;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the HTTP requests the test server receives, by "METHOD path", so a test can prove what a page did not do. */
@ApplicationScoped
public class RequestLog {

    private static final Map<String, AtomicInteger> COUNTS = new ConcurrentHashMap<>();

    void register(@Observes Filters filters) {
        filters.register(rc -> {
            COUNTS.computeIfAbsent(rc.request().method().name() + " " + rc.normalizedPath(), k -> new AtomicInteger()).incrementAndGet();
            rc.next();
        }, 10);
    }

    public static int count(String method, String path) {
        AtomicInteger count = COUNTS.get(method + " " + path);
        return count == null ? 0 : count.get();
    }
}
