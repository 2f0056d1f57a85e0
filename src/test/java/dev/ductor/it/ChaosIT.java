package dev.ductor.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Chaos: three pods of the packaged jar on one durable PostgreSQL, a steady stream of mixed runs (a chain of sleeps, a
 * fan-out/fan-in, a signal then a timer, a flaky step that needs its retry) started by clients that retry on another
 * pod with the same idempotency key, while a random pod is SIGKILLed every 15 s (and replaced) and PostgreSQL is
 * crash-restarted once ({@code pg_ctl -m immediate}). Afterwards every accepted run must exist and have SUCCEEDED,
 * nothing may have been done twice, histories must be gap-free, each signal consumed once and no queue row left for a
 * finished run ({@link ChaosChecks}). Prints its figures, one {@code key=value} per line, the last being
 * {@code runs=… kills=… pg_restarts=… lost=… stuck=… failed=… dup=… recovery_s=…} (CONTRACT §6), and writes them to
 * {@code chaos.out} (default {@code target/chaos-it/chaos.properties}) for {@code bench/run.sh chaos}.
 *
 * <p>The defaults ({@link ChaosSettings}) are the bounded trial {@code ./mvnw verify} runs: 90 s of load at 3 runs/s,
 * 4 kills, one database crash. The full one: {@code bench/run.sh chaos}. Alone:
 * {@code ./mvnw verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=ChaosIT -Dchaos.kills=8}.
 */
@Tag("it")
class ChaosIT {

    private static final String SUITE = "ChaosIT";

    private static ChaosSettings settings;
    private static ItPostgres pg;
    private static Pods pods;
    private static ChaosFleet fleet;
    private static FlakyEndpoint flaky;
    private static long suiteStarted;

    @BeforeAll
    static void startPostgresAndPods() throws Exception {
        suiteStarted = System.nanoTime();
        settings = ChaosSettings.fromSystemProperties();
        log("settings: " + settings);
        pg = ItPostgres.start(true);
        Path workDir = Pods.workDir("chaos-it");
        Pods.deleteOldLogs(workDir);
        pods = new Pods(SUITE, workDir, pg.jdbcUrl());
        fleet = new ChaosFleet(pods, settings.podProperties());
        fleet.startAll();
        flaky = new FlakyEndpoint();
        String admin = pods.token("admin");
        PodProcess first = fleet.ready().get(0);
        for (ChaosWorkflows kind : ChaosWorkflows.values()) {
            ItHttp.expect(201, ItHttp.put(first, "/api/v1/workflows/" + kind.workflow, admin, kind.definition()), "defining " + kind.workflow);
        }
        log("3 pods ready after " + Pods.seconds(System.nanoTime() - suiteStarted) + " s: " + fleet.ready());
    }

    @AfterAll
    static void stopEverything() {
        if (flaky != null) {
            flaky.close();
        }
        if (fleet != null) {
            fleet.close();
        }
        if (pods != null) {
            pods.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void everyAcceptedRunSucceedsOnceThroughPodKillsAndADatabaseCrash() throws Exception {
        String token = pods.token("client");
        try (ChaosClients clients = new ChaosClients(fleet, settings, flaky, token)) {
            ChaosFaults faults = new ChaosFaults(settings, fleet, pg);
            List<String> problems = new ArrayList<>();
            long loadStarted = System.nanoTime();
            long loadStartedMillis = System.currentTimeMillis();
            clients.startLoad(settings.load());
            faults.start();
            Thread.sleep(settings.load().toMillis());
            if (!faults.await(Duration.ofMinutes(2))) {
                faults.stop();
                problems.add("the fault schedule did not end within 2 minutes of the load");
            }
            if (!clients.awaitIdle(settings.clientBudget().plusSeconds(30))) {
                problems.add("clients still busy " + settings.clientBudget().plusSeconds(30).toSeconds() + " s after the load");
            }
            long loadNanos = System.nanoTime() - loadStarted;
            log("failed client tries, from the start of the load: " + clients.failureTimeline());
            log("faults: " + faults.faults().stream().map(f -> f.what() + " over at "
                    + Pods.seconds((f.overAtMillis() - loadStartedMillis) * 1_000_000) + " s").toList());
            double drained = settle();

            ChaosChecks checks = new ChaosChecks(pg.sql(), clients, fleet, flaky, token);
            checks.run(faults.faults().stream().mapToLong(ChaosFaults.Fault::overAtMillis).max().orElse(0));
            problems.addAll(checks.problems());
            problems.addAll(trialProblems(clients, faults));

            String result = "runs=" + clients.accepted().size() + " kills=" + faults.kills() + " pg_restarts=" + faults.databaseCrashes()
                    + " lost=" + checks.lost() + " stuck=" + checks.stuck() + " failed=" + checks.failed() + " dup=" + checks.dup()
                    + " recovery_s=" + checks.figures().get("recovery_s");
            report(figures(clients, faults, checks, loadNanos, drained), result);
            if (!problems.isEmpty() || checks.lost() + checks.stuck() + checks.failed() + checks.dup() > 0) {
                fail(problems.size() + " chaos check(s) failed (" + result + ", seed " + settings.seed() + "):\n - "
                        + String.join("\n - ", problems) + pods.logTails(10));
            }
        }
    }

    /**
     * What went wrong around the runs: a pod that exited without being killed, a 5xx other than 503, a fault that
     * could not be made as planned.
     */
    private static List<String> trialProblems(ChaosClients clients, ChaosFaults faults) {
        List<String> problems = new ArrayList<>(fleet.errors());
        if (!clients.serverErrors().isEmpty()) {
            problems.add(clients.serverErrors().size() + " answers 5xx other than 503 (CONTRACT §6: an outage is a 503): "
                    + clients.serverErrors().subList(0, Math.min(5, clients.serverErrors().size())));
        }
        problems.addAll(faults.errors());
        if (faults.kills() != settings.kills()) {
            problems.add("planned " + settings.kills() + " kills, made " + faults.kills());
        }
        int plannedCrashes = settings.crashesDatabase() ? 1 : 0;
        if (faults.databaseCrashes() != plannedCrashes) {
            problems.add("planned " + plannedCrashes + " database crash, made " + faults.databaseCrashes());
        }
        return problems;
    }

    private static Map<String, Object> figures(ChaosClients clients, ChaosFaults faults, ChaosChecks checks, long loadNanos,
                                               double drained) {
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("settings", settings.toString().replace(' ', ','));
        figures.put("starts_sent", clients.sent());
        figures.put("client_retries", clients.retries());
        figures.put("client_answers", compact(clients.answers()));
        figures.put("requests_given_up", clients.abandoned().size());
        figures.put("server_errors", clients.serverErrors().size());
        figures.put("pods_exited_unkilled", fleet.errors().size());
        List<Long> latencies = clients.accepted().stream().map(ChaosClients.Accepted::latencyMillis).sorted().toList();
        figures.put("start_p50_ms", percentile(latencies, 0.50));
        figures.put("start_p99_ms", percentile(latencies, 0.99));
        figures.put("start_max_ms", latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1));
        figures.put("faults", faults.faults().stream().map(f -> f.what().replace(' ', '_')).collect(Collectors.joining(",")));
        figures.put("db_outage_s", Pods.seconds(faults.databaseOutage().toNanos()));
        List<Double> boots = fleet.bootSeconds().stream().sorted().toList();
        figures.put("pod_boot_s_median", boots.isEmpty() ? 0 : boots.get(boots.size() / 2));
        figures.put("pod_boot_s_max", boots.isEmpty() ? 0 : boots.get(boots.size() - 1));
        figures.put("load_s", Pods.seconds(loadNanos));
        figures.put("drain_s", drained);
        checks.figures().forEach((k, v) -> figures.put(k, v instanceof Map<?, ?> m ? compact(m) : v));
        figures.put("wall_s", Pods.seconds(System.nanoTime() - suiteStarted));
        return figures;
    }

    /**
     * Waits, bounded by {@link ChaosSettings#settleTimeout()}, until no run is RUNNING, nothing is queued for a
     * finished run and every pod is ready; returns the seconds it took.
     */
    private static double settle() throws Exception {
        long started = System.nanoTime();
        long deadline = started + settings.settleTimeout().toNanos();
        while (System.nanoTime() < deadline) {
            long running = pg.sql().single("SELECT count(*) FROM eec_workflow_run WHERE status = 'RUNNING'");
            long leftover = pg.sql().single("SELECT count(*) FROM eec_queue_item q JOIN eec_workflow_run r ON r.run_id = q.run_id"
                    + " WHERE r.status <> 'RUNNING'");
            if (running == 0 && leftover == 0 && fleet.allReady()) {
                break;
            }
            Thread.sleep(500);
        }
        double seconds = Pods.seconds(System.nanoTime() - started);
        log("settled after " + seconds + " s: " + pg.sql().countBy("SELECT status, count(*) FROM eec_workflow_run GROUP BY status")
                + ", queue " + pg.sql().countBy("SELECT kind, count(*) FROM eec_queue_item GROUP BY kind"));
        return seconds;
    }

    /** Prints the figures, then the result line last; writes both to {@code chaos.out}. */
    private static void report(Map<String, Object> figures, String result) throws IOException {
        List<String> lines = new ArrayList<>();
        figures.forEach((k, v) -> lines.add(k + "=" + v));
        lines.add(result);
        Path out = Path.of(System.getProperty("chaos.out", Pods.workDir("chaos-it").resolve("chaos.properties").toString()));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.write(out, lines, StandardCharsets.UTF_8);
        lines.forEach(System.out::println);
    }

    private static String compact(Map<?, ?> map) {
        return map.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue()).collect(Collectors.joining(","));
    }

    private static long percentile(List<Long> sorted, double p) {
        return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(p * sorted.size())));
    }

    private static void log(String message) {
        System.out.println("[" + SUITE + "] " + message);
    }
}
