package dev.ductor.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Every runtime {@code ductor.*} setting; application.properties and docs/operations.md describe each. */
@ConfigMapping(prefix = "ductor")
public interface DuctorConfig {

    Embedded embedded();

    DevTokens devTokens();

    Coordinator coordinator();

    Queue queue();

    Worker worker();

    Watchdog watchdog();

    Metrics metrics();

    Database database();

    ClockSync clock();

    Live live();

    Starts starts();

    Http http();

    Limits limits();

    Workflow workflow();

    Schedules schedules();

    Bulk bulk();

    Retention retention();

    Commit commit();

    Dispatch dispatch();

    /**
     * How finished steps' results are applied to their runs: the commit seam ({@code worker/CommitStrategy}), chosen
     * once at start-up. The default is the fast way; {@code inline} is the plain one, kept as the reference for
     * correctness (the core tests run under both, {@code -Pslow-paths}).
     */
    interface Commit {
        /**
         * {@code grouped}: the results that arrive together, of in-process steps and of external workers' reports alike,
         * are applied in one group commit, each run ticked on its result there; {@code inline}: each result the plain
         * way, one run at a time: into its run's inbox with a wakeup, applied by a coordinator tick.
         */
        @WithDefault("grouped")
        Strategy strategy();

        enum Strategy { GROUPED, INLINE }
    }

    /**
     * Where the steps a commit dispatches go: the local dispatch seam ({@code run/LocalDispatch}), chosen once at
     * start-up. The default is the fast way; {@code queue} is the plain one, kept as the reference for correctness.
     */
    interface Dispatch {
        /**
         * {@code eager}: a commit that dispatches steps leases, in that commit, those this pod's in-process worker can run
         * now to its free slots, and those an external worker's report asked for ({@code next}) to that worker;
         * {@code queue}: every step is queued and taken by a claim ({@code SKIP LOCKED}), and a report's {@code next} is
         * answered with no task.
         */
        @WithDefault("eager")
        Local local();

        enum Local { EAGER, QUEUE }
    }

    /**
     * Retention (run/retention): finished runs, with every row they own, are deleted once their period has passed since
     * they finished. A workflow's own {@code "retention"} wins over the default for the runs of that revision.
     */
    interface Retention {
        /** This pod deletes expired runs (every pod may: each batch locks its runs with SKIP LOCKED). */
        @WithDefault("true")
        boolean enabled();

        /**
         * How long a finished run is kept when its workflow revision names no {@code retention}; 0 keeps such runs
         * forever (a workflow's own retention still applies to its runs).
         */
        @WithName("default")
        @WithDefault("30d")
        Duration defaultPeriod();

        /** How often each pod runs a pass (read by the scheduler as ${ductor.retention.interval}). */
        @WithDefault("1m")
        Duration interval();

        /** Top-level runs examined per batch; each batch deletes in one short transaction. */
        @WithDefault("200")
        int batchSize();

        /** The most batches one pass runs; the next pass goes on where this one stopped. */
        @WithDefault("50")
        int maxBatchesPerPass();
    }

    Fleet fleet();

    /** The fleet history's minute samples (fleet/FleetSampler, GET /api/v1/fleet/history). */
    interface Fleet {
        /** This pod samples once a minute (every pod may: the first sample of a minute is kept). */
        @WithDefault("true")
        boolean samplerEnabled();
    }

    /** Bulk actions ({@code POST /api/v1/bulk-actions}), worked through by every pod. */
    interface Bulk {
        /** This pod takes part. */
        @WithDefault("true")
        boolean enabled();

        /** How often a pod looks for runs still to do (read by the scheduler as ${ductor.bulk.interval}). */
        @WithDefault("1s")
        Duration interval();

        /** Runs one pod takes at once (FOR UPDATE SKIP LOCKED). */
        @WithDefault("50")
        int batchSize();

        /** How long a taken batch stays with its pod before another may take it. */
        @WithDefault("60s")
        Duration claim();

        /** Most runs one bulk action may match. */
        @WithDefault("100000")
        int maxRuns();
    }

    /** Bounds of the workflow language (README "Writing workflows"). */
    interface Workflow {
        /** The most items one {@code forEach} node may fan out over; a longer list fails the node. */
        @WithDefault("1000")
        int maxFanOut();

        /** How deep child workflows may nest: a child deeper than this fails its parent's node instead of starting. */
        @WithDefault("16")
        int maxChildDepth();
    }

    /** Bounds on what one tenant, and one caller of it, may hold open or pile up, so that it cannot stall the others (docs/operations.md). */
    interface Limits {
        /** Long-poll task claims ({@code waitSeconds} above 0) one tenant may hold open in a pod at once; past it, 429. */
        @WithDefault("32")
        int longPollsPerTenant();

        /** Live run streams ({@code GET /runs/{id}/events}) one tenant may hold open in a pod at once; past it, 429. */
        @WithDefault("64")
        int streamsPerTenant();

        /** Long-poll claims one caller (a token's subject, within its tenant) may hold open in a pod at once; past it, 429. */
        @WithDefault("8")
        int longPollsPerCaller();

        /** Live run streams one caller (a token's subject, within its tenant) may hold open in a pod at once; past it, 429. */
        @WithDefault("16")
        int streamsPerCaller();

        /** Signals that may wait in one run's inbox, not yet applied; past it, a new signal is 429. */
        @WithDefault("1000")
        int pendingSignalsPerRun();

        /** Starts that may wait in a pod's start queue for their group commit; past it, a start is 503 with Retry-After. */
        @WithDefault("10000")
        int startQueue();
    }

    /** Bounds of the in-process {@code http} step (worker/egress): where it may connect, how long, how much. */
    interface Http {
        /**
         * CIDR blocks, addresses, host names or {@code *.suffix} patterns a step may reach although they are refused
         * by default (loopback, link-local, private ranges); never the pod's own port on its own address.
         */
        java.util.Optional<List<String>> allow();

        /** CIDR blocks, addresses, host names or {@code *.suffix} patterns a step may never reach; wins over allow. */
        java.util.Optional<List<String>> deny();

        /** The longest a whole exchange may take, body included; a step's timeoutMs can only shorten it. */
        @WithDefault("30s")
        Duration maxTime();

        /** The largest answer a step reads; past it the step fails (not retried). */
        @WithDefault("1048576")
        long maxResponseBytes();

        /** Header values a step names with {@code "auth": {"secretRef": "<name>"}}, e.g. from DUCTOR_HTTP_SECRETS_<NAME>. */
        Map<String, String> secrets();
    }

    interface Starts {
        /**
         * How long a group of API starts waits for more to join it before it commits, when the group before it was
         * shared (a lone start on a quiet pod commits at once); zero never waits. Trades that much latency a start
         * under load for fewer, fuller transactions (docs/bench-journal/chain3.md).
         */
        @WithDefault("0ms")
        Duration linger();
    }

    interface Live {
        /**
         * Listen for run commits (PostgreSQL LISTEN/NOTIFY on one dedicated connection per pod) and serve
         * GET /api/v1/runs/{id}/events; false: that route answers 503 and no listener connection is opened.
         */
        @WithDefault("true")
        boolean enabled();

        /** How often an open event stream gets a comment line, so proxies keep it open. */
        @WithDefault("15s")
        Duration heartbeat();

        /** Longest wait between reconnection attempts of the listener when the database is away (doubling from 100 ms). */
        @WithDefault("10s")
        Duration reconnectCap();
    }

    interface ClockSync {
        /**
         * How often each pod reads the database's clock again (read by the scheduler expression); between readings
         * the JVM's monotonic clock carries it.
         */
        @WithDefault("10s")
        Duration syncInterval();
    }

    interface Database {
        /**
         * How long a pod that starts while PostgreSQL is unreachable waits for it (with backoff, logging each try)
         * before it gives up and exits; 0 does not wait.
         */
        @WithDefault("60s")
        Duration startupWait();

        /**
         * Whether this pod migrates the schema at start-up. Not set directly: it follows
         * {@code quarkus.flyway.migrate-at-start}, which Ductor's start-up carries out itself so that it can wait
         * through a database that goes away midway (dev.ductor.database.StartupMigrationConfigSourceFactory).
         */
        @WithDefault("false")
        boolean migrateAtStart();
    }

    interface Metrics {
        /** How often queue depth and lag per tier are sampled (read by the scheduler expression). */
        @WithDefault("5s")
        Duration queueSampleInterval();
    }

    /** Load the sample workflows (chain3, fanout, ...) for tenant demo at start-up. */
    @WithDefault("false")
    boolean samples();

    /** Where this pod says it is, in lease owners and logs; defaults to host name and pid. */
    java.util.Optional<String> podName();

    /** Read before CDI starts by the embedded PostgreSQL config source; mapped here so the keys are documented and checked. */
    interface Embedded {
        /** Start a PostgreSQL of our own when no quarkus.datasource.jdbc.url is configured. */
        @WithDefault("true")
        boolean enabled();

        /** Its data directory, kept across restarts. */
        @WithDefault(".ductor/pgdata")
        String dataDir();

        /** Use a throw-away directory under java.io.tmpdir instead (tests). */
        @WithDefault("false")
        boolean ephemeral();

        /** 0 picks a free port; the JDBC URL is logged at start-up. */
        @WithDefault("0")
        int port();
    }

    interface DevTokens {
        /** Generate a dev key pair and log a token per role for tenant demo (dev, test, embedded profiles only). */
        @WithDefault("false")
        boolean enabled();

        /** Where dev-keys/ and dev-tokens/ are written. */
        @WithDefault(".ductor")
        String dir();

        /** How long a dev token is valid; every start issues new ones. */
        @WithDefault("12h")
        Duration lifetime();
    }

    interface Coordinator {
        /** Run coordinator loops in this process. */
        @WithDefault("true")
        boolean enabled();

        /** Concurrent coordinator loops per process. */
        @WithDefault("2")
        int threads();

        /** Wakeups claimed per round; wakeups of one run in a batch share one tick. */
        @WithDefault("32")
        int batchSize();

        /** How long a claimed wakeup stays invisible to other pods before it is redelivered. */
        @WithDefault("30s")
        Duration lease();

        /** Sleep between polls when the queue had nothing due (a commit in this JVM wakes the loop early). */
        @WithDefault("50ms")
        Duration idlePoll();

        /** Delays before the in-process retries after a version conflict (the first attempt is immediate). */
        @WithDefault("10ms,20ms,40ms,1s")
        List<Duration> retryDelays();

        /** In-process retries after a conflict (SmallRye's maxRetries follows this key). */
        @WithDefault("4")
        int maxRetries();

        /** First requeue delay after the in-process retries are exhausted; doubles per requeue. */
        @WithDefault("100ms")
        Duration requeueBase();

        /** Cap of the requeue backoff. */
        @WithDefault("10s")
        Duration requeueCap();

        /** Requeues without progress after which a run is force-failed as livelocked. */
        @WithDefault("8")
        int maxNonProgressingRequeues();

        /**
         * Deliveries of a run's wakeup whose tick failed with an error (not a conflict, not a database outage) after
         * which the run is parked: its wakeups and timers are dead-lettered until an operator retries them.
         */
        @WithDefault("5")
        int maxFailedDeliveries();
    }

    interface Queue {
        /** Relative share of task claims per tier when tiers compete; tenants of a tier share it evenly. */
        Map<String, Integer> tierWeights();
    }

    interface Worker {
        /** Run in-process step workers (noop, echo, sleep, fail, http) in this process. */
        @WithDefault("true")
        boolean enabled();

        /** Concurrent in-process tasks per process. */
        @WithDefault("8")
        int threads();

        /** Lease of a claimed task; a worker heartbeats at a third of it while the task runs. */
        @WithDefault("30s")
        Duration lease();

        @WithDefault("50ms")
        Duration idlePoll();

        /**
         * Threads applying finished steps' results to their runs, each in group commits. One by default: results that
         * arrive while it commits share its next commit, so the batch grows with the load; a second committer split
         * the same results into more, smaller commits (docs/bench-journal/chain3.md).
         */
        @WithDefault("1")
        int committers();

        /** Most results one group commit applies (one transaction; every run's row checked on its version). */
        @WithDefault("64")
        int commitBatchSize();

        /**
         * How long a group commit waits for more results before it commits, when the one before it was shared (a lone
         * result on a quiet pod commits at once); zero never waits. Trades that much latency a step under load for
         * fewer, fuller transactions (docs/bench-journal/chain3.md).
         */
        @WithDefault("0ms")
        Duration commitLinger();

        /** Turn expired task leases into new attempts (every pod may; SKIP LOCKED shares the work). */
        @WithDefault("true")
        boolean reaperEnabled();

        /**
         * How often one node may lose its lease (its pod died or lost the database, an external worker stopped
         * heartbeating) and be dispatched again without spending an attempt of its retry policy; the next expiry
         * fails the node ("lease expired N times"). Bounded, so a step that never heartbeats does not loop forever.
         */
        @WithDefault("5")
        int leaseExpiryRetries();

        /** How often the lease reaper looks (read by the scheduler expression). */
        @WithDefault("5s")
        Duration reapInterval();

        /** Longest long-poll an external worker's claim may ask for. */
        @WithDefault("30s")
        Duration maxClaimWait();
    }

    interface Watchdog {
        @WithDefault("true")
        boolean enabled();

        /** A running run with no commit for this long and nothing queued that could advance it is force-failed. */
        @WithDefault("1h")
        Duration stuckAfter();

        /** How often each pod runs a pass (read by the scheduler expression). */
        @WithDefault("1m")
        Duration interval();

        /** Runs examined per batch, keyed by (created_at, run_id). */
        @WithDefault("500")
        int batchSize();
    }

    /** The scheduler: cron schedules' fire times become runs (aggregate/schedule/ScheduleFirer). */
    interface Schedules {
        /** Run scheduler passes in this process (every pod may: the conditional update makes each fire start one run). */
        @WithDefault("true")
        boolean enabled();

        /** How often each pod runs a pass (read by the scheduler expression). */
        @WithDefault("1s")
        Duration interval();

        /** The most fire times one schedule starts in one pass, missed ones included; older ones are skipped. */
        @WithDefault("100")
        int maxCatchUp();

        /** A fire time older than this when a pass reaches it counts as missed, and follows the schedule's catchUp. */
        @WithDefault("60s")
        Duration misfireThreshold();

        /** Due schedules one pass takes on, the most overdue first; the rest wait for the next pass. */
        @WithDefault("100")
        int batchSize();
    }
}
