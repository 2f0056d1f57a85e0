package dev.ductor.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every Ductor meter, with stable names and low-cardinality tags (never a run id). Prometheus names:
 * {@code ductor_tick_total{outcome}}, {@code ductor_tick_retries_total}, {@code ductor_requeues_total},
 * {@code ductor_forced_failures_total{reason}}, {@code ductor_tick_seconds}, {@code ductor_queue_depth{tier}},
 * {@code ductor_queue_lag_seconds{tier}}, {@code ductor_signals_total{outcome}}, {@code ductor_watchdog_wakeups_total},
 * {@code ductor_watchdog_unloadable_total}, {@code ductor_dead_letters_total}, {@code ductor_stale_reports_total{path}},
 * {@code ductor_retention_deleted_total{table}}.
 */
@ApplicationScoped
public class DuctorMetrics {

    private final MeterRegistry registry;
    private final Map<TickOutcome, Counter> ticks = new EnumMap<>(TickOutcome.class);
    private final Counter retries;
    private final Counter requeues;
    private final Counter watchdogWakeups;
    private final Counter watchdogUnloadable;
    private final Counter deadLetters;
    private final DistributionSummary tickSeconds;
    private final Map<String, AtomicLong> depth = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> lagMillis = new ConcurrentHashMap<>();

    @Inject
    public DuctorMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (TickOutcome outcome : TickOutcome.values()) {
            ticks.put(outcome, Counter.builder("ductor.tick").description("Coordinator ticks by outcome; a version conflict is not an error")
                    .tag("outcome", outcome.tag()).register(registry));
        }
        retries = Counter.builder("ductor.tick.retries").description("In-process tick retries after a version conflict").register(registry);
        requeues = Counter.builder("ductor.requeues").description("Wakeups requeued with backoff after the in-process retries ran out").register(registry);
        watchdogWakeups = Counter.builder("ductor.watchdog.wakeups")
                .description("Runs the watchdog found idle with work a tick could do, and woke instead of failing").register(registry);
        watchdogUnloadable = Counter.builder("ductor.watchdog.unloadable")
                .description("Runs a watchdog pass could not load (checksum mismatch, missing revision) and skipped").register(registry);
        deadLetters = Counter.builder("ductor.dead.letters")
                .description("Coordinator items parked after their run's tick failed on every delivery").register(registry);
        // A summary named *.seconds rather than a Timer: a Timer would be exported as ductor_tick_seconds too,
        // but Micrometer refuses a Timer and the ductor.tick counter under one base name.
        tickSeconds = DistributionSummary.builder("ductor.tick.seconds").description("Duration of one tick attempt")
                .baseUnit("seconds")
                // Explicit buckets: a summary's default histogram buckets are whole numbers, useless for seconds.
                .serviceLevelObjectives(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
                .register(registry);
        // Registered up front so that alerts on them see a zero, not a missing series.
        forcedFailures("livelock");
        forcedFailures("stuck");
        signals("accepted");
        signals("duplicate");
        signals("rejected");
        staleReports("group-commit");
        staleReports("api");
        staleReports("in-process");
        for (String table : RETAINED_TABLES) {
            retentionDeleted(table);
        }
    }

    /**
     * The tables retention deletes from, each a series of {@code ductor_retention_deleted_total}, named without their
     * {@code eec_} prefix (the tag is a label, and only a table's owner names the table itself).
     */
    public static final java.util.List<String> RETAINED_TABLES =
            java.util.List.of("workflow_run", "run_transition", "run_inbox", "queue_item");

    /** Rows retention deleted from {@code table} (one of {@link #RETAINED_TABLES}), counted after their commit. */
    public void retentionDeleted(String table, long rows) {
        if (rows > 0) {
            retentionDeleted(table).increment(rows);
        }
    }

    private Counter retentionDeleted(String table) {
        return Counter.builder("ductor.retention.deleted")
                .description("Rows deleted by retention, per table: finished runs past their period and the rows they owned")
                .tag("table", table).register(registry);
    }

    public void tick(TickOutcome outcome, long nanos) {
        ticks.get(outcome).increment();
        tickSeconds.record(nanos / 1e9);
    }

    public void retry() {
        retries.increment();
    }

    public void requeue() {
        requeues.increment();
    }

    public void watchdogWakeup() {
        watchdogWakeups.increment();
    }

    public void watchdogUnloadable() {
        watchdogUnloadable.increment();
    }

    public void deadLettered(int items) {
        deadLetters.increment(items);
    }

    public void forcedFailure(String reason) {
        forcedFailures(reason).increment();
    }

    public void signal(String outcome) {
        signals(outcome).increment();
    }

    /**
     * A step's result refused because its lease was no longer the reporter's (fencing at work: a paused or partitioned
     * worker whose lease was reaped and handed on); {@code path} is where it arrived: {@code group-commit} for this
     * pod's in-process steps, {@code in-process} for one reported alone after its group commit failed, {@code api} for
     * an external worker's report.
     */
    public void staleReport(String path) {
        staleReports(path).increment();
    }

    private Counter staleReports(String path) {
        return Counter.builder("ductor.stale.reports")
                .description("Step results refused because their lease had been lost (fenced off)")
                .tag("path", path).register(registry);
    }

    private Counter forcedFailures(String reason) {
        return Counter.builder("ductor.forced.failures").description("Runs force-failed by the livelock guard or the watchdog")
                .tag("reason", reason).register(registry);
    }

    private Counter signals(String outcome) {
        return Counter.builder("ductor.signals").description("Signals by outcome").tag("outcome", outcome).register(registry);
    }

    /** Sets the sampled depth and lag of a tier's due queue items. */
    public void queue(String tier, long dueItems, long oldestLagMillis) {
        depth.computeIfAbsent(tier, t -> registry.gauge("ductor.queue.depth", io.micrometer.core.instrument.Tags.of("tier", t),
                new AtomicLong())).set(dueItems);
        lagMillis.computeIfAbsent(tier, t -> {
            AtomicLong holder = new AtomicLong();
            io.micrometer.core.instrument.Gauge.builder("ductor.queue.lag", holder, h -> h.get() / 1000.0)
                    .baseUnit("seconds").tag("tier", t).register(registry);
            return holder;
        }).set(oldestLagMillis);
    }
}
