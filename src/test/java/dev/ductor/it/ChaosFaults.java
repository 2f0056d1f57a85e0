package dev.ductor.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The faults of a chaos trial, on a schedule from the start of the load: a SIGKILL of a random pod every
 * {@link ChaosSettings#killEvery()} ({@link ChaosSettings#kills()} of them) and one crash-restart of PostgreSQL at
 * {@link ChaosSettings#dbCrashAt()}. Runs on a thread of its own; records when each fault was over, since the last one
 * is where the time to recovery is measured from.
 */
final class ChaosFaults {

    /** One fault that happened: what, and the wall-clock millisecond it was over (the pod gone, the server back). */
    record Fault(String what, long overAtMillis) {
    }

    private record Planned(long atMillis, boolean databaseCrash) {
    }

    private final ChaosSettings settings;
    private final ChaosFleet fleet;
    private final ItPostgres postgres;
    private final Random random;
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private volatile Duration databaseOutage = Duration.ZERO;
    private long loadEndsMillis;
    private Thread thread;

    ChaosFaults(ChaosSettings settings, ChaosFleet fleet, ItPostgres postgres) {
        this.settings = settings;
        this.fleet = fleet;
        this.postgres = postgres;
        this.random = new Random(settings.seed());
    }

    /** Starts the schedule; its times count from now. */
    void start() {
        long zero = System.currentTimeMillis();
        loadEndsMillis = zero + settings.load().toMillis();
        List<Planned> plan = new ArrayList<>();
        for (int i = 1; i <= settings.kills(); i++) {
            plan.add(new Planned(zero + settings.killEvery().toMillis() * i, false));
        }
        if (settings.crashesDatabase()) {
            plan.add(new Planned(zero + settings.dbCrashAt().toMillis(), true));
        }
        plan.sort(Comparator.comparingLong(Planned::atMillis));
        thread = new Thread(() -> run(plan), "chaos-faults");
        thread.setDaemon(true);
        thread.start();
    }

    /** Waits for the schedule to end (every fault done); false on timeout. */
    boolean await(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        return !thread.isAlive();
    }

    void stop() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    List<Fault> faults() {
        return faults;
    }

    long kills() {
        return faults.stream().filter(f -> f.what.startsWith("kill")).count();
    }

    long databaseCrashes() {
        return faults.stream().filter(f -> f.what.startsWith("database")).count();
    }

    Duration databaseOutage() {
        return databaseOutage;
    }

    List<String> errors() {
        return errors;
    }

    private void run(List<Planned> plan) {
        try {
            for (Planned next : plan) {
                long wait = next.atMillis - System.currentTimeMillis();
                if (wait > 0) {
                    Thread.sleep(wait);
                }
                if (next.databaseCrash) {
                    crashDatabase();
                } else {
                    kill();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception | AssertionError e) {
            errors.add("fault schedule stopped: " + e);
        }
    }

    /**
     * A kill waits for its disruption budget (another pod ready) as an eviction would: until the load ends, at least
     * {@code killEvery}. On a busy machine a replacement, or a pod whose boot met the database crash, can take longer
     * to become ready than the pause between two kills.
     */
    private void kill() throws Exception {
        Duration patience = Duration.ofMillis(Math.max(settings.killEvery().toMillis(), loadEndsMillis - System.currentTimeMillis()));
        PodProcess victim = fleet.killRandom(random, patience);
        if (victim == null) {
            errors.add("no pod could be killed: fewer than two were ready for " + patience.toSeconds() + " s");
            return;
        }
        faults.add(new Fault("kill " + victim.name(), System.currentTimeMillis()));
    }

    private void crashDatabase() throws Exception {
        // Whatever the pods are doing, a replacement's boot included: a booting pod waits for the database too.
        log("crash-restarting PostgreSQL (down for " + settings.dbDown().toSeconds() + " s); "
                + (fleet.allReady() ? "every pod ready" : "a pod is booting"));
        databaseOutage = postgres.crashRestart(settings.dbDown());
        faults.add(new Fault("database crash-restart", System.currentTimeMillis()));
        log("PostgreSQL back after " + Pods.seconds(databaseOutage.toNanos()) + " s");
    }

    private static void log(String message) {
        System.out.println("[ChaosIT] " + message);
    }
}
