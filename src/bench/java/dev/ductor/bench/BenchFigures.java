package dev.ductor.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one benchmark scenario, in insertion order, written to {@code bench.out} as key=value lines
 * (bench/run.sh prints them), plus the small helpers the {@code *Bench} classes share: percentiles, fixed-point
 * formatting, the machine's load and this JVM's CPU time.
 */
final class BenchFigures {

    private final Map<String, String> figures = new LinkedHashMap<>();
    private final Path out;

    BenchFigures(Path out) {
        this.out = out;
    }

    void put(String key, Object value) {
        figures.put(key, String.valueOf(value));
    }

    void write() throws IOException {
        StringBuilder text = new StringBuilder();
        figures.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, text.toString(), StandardCharsets.UTF_8);
    }

    static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** Nearest-rank percentile of unsorted values; NaN when there are none. */
    static double percentile(double[] values, double p) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static double mean(double[] values) {
        return values.length == 0 ? Double.NaN : Arrays.stream(values).average().orElse(Double.NaN);
    }

    /** The machine's 1-minute load average (Linux), to judge how noisy a figure is; -1 when unknown. */
    static double load1() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (Exception e) {
            return -1;
        }
    }

    /** CPU time of this JVM (all threads). */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static int intProperty(String name, int fallback) {
        return Integer.parseInt(System.getProperty(name, Integer.toString(fallback)).trim());
    }
}
