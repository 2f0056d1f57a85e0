package dev.ductor.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * CPU time of this JVM's threads by kind, read from /proc/self/task (Linux; empty elsewhere): which part of "the
 * JVM's CPU" is Ductor's request and tick threads, which the benchmark's own client, and which the JIT compiler and the
 * garbage collector, which no per-thread MXBean shows. A thread's kind comes from its native name (the first 15
 * characters of the Java name); a thread that ended between two readings loses its share, which is small here
 * (the server's pools keep their threads).
 */
final class ThreadCpu {

    /** Kinds in the order they are reported. */
    static final List<String> KINDS = List.of("eventloop", "rest", "coordinator", "jit", "gc", "client", "bench_main", "other");

    private ThreadCpu() {
    }

    /** Nanoseconds of CPU per kind so far. */
    static Map<String, Long> read() {
        Map<String, Long> byKind = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim();
                    byKind.merge(kind(name), nanos(task), Long::sum);
                } catch (Exception ended) {
                    // the thread ended meanwhile
                }
            }
        } catch (Exception notLinux) {
            return Map.of();
        }
        return byKind;
    }

    static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((kind, nanos) -> delta.put(kind, nanos - before.getOrDefault(kind, 0L)));
        return delta;
    }

    /** {@code kind:ms,...} per signal, in {@link #KINDS} order. */
    static String perSignal(Map<String, Long> nanos, long signals) {
        return KINDS.stream()
                .map(kind -> kind + ":" + BenchFigures.fixed(signals == 0 ? 0 : nanos.getOrDefault(kind, 0L) / 1e6 / signals, 2))
                .collect(Collectors.joining(","));
    }

    private static String kind(String name) {
        if (name.startsWith("vert.x-eventloo")) {
            return "eventloop";
        }
        if (name.startsWith("executor-thread")) {
            return "rest"; // Quarkus' worker pool: the blocking JAX-RS methods
        }
        if (name.startsWith("ductor-coordina")) {
            return "coordinator";
        }
        if (name.contains("CompilerThre")) {
            return "jit";
        }
        if (name.startsWith("GC Thread") || name.startsWith("G1 ") || name.startsWith("VM Thread")) {
            return "gc";
        }
        if (name.startsWith("bench-") || name.startsWith("HttpClient-")) {
            return "client";
        }
        if (name.equals("java") || name.equals("main")) {
            return "bench_main"; // the test's own thread: it polls for the dispatches with short sleeps
        }
        return "other";
    }

    /** schedstat's first field (ns on a CPU); stat's utime + stime (clock ticks) where it is missing. */
    private static long nanos(Path task) throws Exception {
        Path schedstat = task.resolve("schedstat");
        if (Files.exists(schedstat)) {
            return Long.parseLong(Files.readString(schedstat).trim().split(" ")[0]);
        }
        String stat = Files.readString(task.resolve("stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L;
    }
}
