package dev.ductor.it;

import java.time.Duration;

/**
 * What a chaos trial does, from {@code chaos.*} system properties (Maven passes {@code -Dchaos.x=y} on to the IT's JVM).
 * The defaults are the bounded CI trial of {@code ./mvnw verify}; {@code bench/run.sh chaos} runs the full one.
 *
 * @param kills          pods SIGKILLed, one every {@code killEvery} from the start of the load (a replacement is
 *                       launched at once)
 * @param killEvery      the pause between kills
 * @param load           how long runs are started
 * @param pace           runs started per second, spread evenly over the workflows
 * @param dbCrashAt      when (from the start of the load) PostgreSQL is crash-restarted; negative: never
 * @param dbDown         how long it stays down before it is started again
 * @param lease          the pods' task and coordinator leases (what a killed pod's work waits for)
 * @param clientBudget   how long one client keeps retrying one request (on other pods) before giving up
 * @param settleTimeout  how long, after the load, every run may take to finish
 * @param seed           the random choice of victims (printed, so a trial can be repeated)
 */
record ChaosSettings(int kills, Duration killEvery, Duration load, double pace, Duration dbCrashAt, Duration dbDown,
                     Duration lease, Duration clientBudget, Duration settleTimeout, long seed) {

    static final int PODS = 3;

    static ChaosSettings fromSystemProperties() {
        int kills = Integer.getInteger("chaos.kills", 4);
        Duration killEvery = seconds("chaos.kill-every-s", 15);
        Duration load = seconds("chaos.duration-s", Math.max(90, killEvery.toSeconds() * (kills + 1)));
        // Between two kills in the middle of the trial, so both kinds of fault overlap with work in flight.
        Duration dbCrashAt = seconds("chaos.db-crash-at-s", killEvery.toSeconds() * (kills / 2) + killEvery.toSeconds() / 2);
        return new ChaosSettings(kills, killEvery, load,
                Double.parseDouble(System.getProperty("chaos.pace", "3")),
                dbCrashAt,
                seconds("chaos.db-down-s", 3),
                seconds("chaos.lease-s", 10),
                seconds("chaos.client-budget-s", 120),
                seconds("chaos.settle-timeout-s", 150),
                Long.getLong("chaos.seed", System.currentTimeMillis()));
    }

    /** The pods' settings: short leases, so a killed pod's work is taken over in seconds, not the default 30 s. */
    String[] podProperties() {
        return new String[] {
                "ductor.worker.lease=" + lease.toSeconds() + "s",
                "ductor.coordinator.lease=" + lease.toSeconds() + "s",
                "ductor.worker.reap-interval=1s"};
    }

    boolean crashesDatabase() {
        return !dbCrashAt.isNegative();
    }

    @Override
    public String toString() {
        return "kills=" + kills + " kill_every_s=" + killEvery.toSeconds() + " load_s=" + load.toSeconds() + " pace=" + pace
                + " db_crash_at_s=" + (crashesDatabase() ? dbCrashAt.toSeconds() : "never") + " db_down_s=" + dbDown.toSeconds()
                + " lease_s=" + lease.toSeconds() + " seed=" + seed;
    }

    private static Duration seconds(String property, long defaultSeconds) {
        return Duration.ofSeconds(Long.getLong(property, defaultSeconds));
    }
}
