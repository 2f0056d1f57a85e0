#!/usr/bin/env bash
# Ductor benchmarks: one entry point, one scenario per argument. See docs/benchmarks.md.
#
#   bench/run.sh ticks     committed coordinator ticks/s (low and high contention, group commit) vs pgbench
#   bench/run.sh signals   signals/s one hot run absorbs with the coordinator running; signal-to-dispatch p50/p99
#   bench/run.sh timers    coordinator and task claim latency, empty queue vs 1M pending future timers
#   bench/run.sh startup   time-to-ready and JVM CPU to ready: JDK 17, JDK 25, JDK 25 with a Leyden AOT cache
#   bench/run.sh wakeup    a new pod (the image's JVM and AOT cache, a pod's CPU and heap) under chain3 load from ready
#   bench/run.sh chain3    end-to-end runs/s of the packaged jar on a durable PostgreSQL vs a plain-JDBC reference
#   bench/run.sh chain3-sdk  the same chain run by SDK workers over HTTP vs by the in-process workers
#   bench/run.sh backlog-sdk 20,000 runs queued at once, one SDK worker: do they finish in the order they started?
#   bench/run.sh fanout    server CPU per fan-out item at 10, 100 and 1,000 items a run (issue 29)
#   bench/run.sh chaos     3 pods under load, a pod SIGKILLed every 15 s, PostgreSQL crash-restarted once: 0 lost?
#   bench/run.sh failover  pg_auto_failover primary and synchronous standby, 3 switches under load: 0 lost, 0 failed?
#   bench/run.sh hostile   issue 28's hostile client against the packaged jar while another tenant works: pod alive?
#   bench/run.sh soak      steady chain3 load with retention PT1M: do the tables' sizes stay flat?
#
# Each scenario builds what it needs, sends Maven's output to a log under target/bench/, and prints only its
# figures as key=value lines. Database: the embedded, throw-away PostgreSQL the test profile starts, or an
# external one when QUARKUS_DATASOURCE_JDBC_URL (and _USERNAME/_PASSWORD) are set in the environment.
# BENCH_OPTS adds -D options to the Maven call, e.g. BENCH_OPTS="-Dbench.runs=400 -Dbench.pgbench.seconds=5";
# PGBENCH names the pgbench binary (none: no SQL ceiling).
set -euo pipefail

cd "$(dirname "$0")/.."

usage() {
    cat <<'EOF'
usage: bench/run.sh <scenario>

scenarios:
  ticks   committed ticks/s through Ductor's tick at low and high contention, conflict and wasted-work
          ratios, p50/p99 tick latency, a group-commit experiment, and the raw-SQL ceiling of the same
          statements with pgbench (bench/sql/tick.sql); last line:
          ticks_per_s=<n> ceiling_per_s=<m> ratio=<n/m>
  signals signals/s absorbed by one hot run with the real coordinator loops and workers running, over
          HTTP (and straight through the service), latency from a signal's 202 to the step it unblocks
          being dispatched (committed), commits per burst; last line:
          signals_per_s=<n> p50_ms=<a> p99_ms=<b>
  timers  p50 latency of the coordinator claim (wakeups, timers) and the fair task claim with an empty
          queue and with 1,000,000 pending future timers (and again after deleting them); last line:
          claim_ms_empty=<a> claim_ms_1m=<b> ratio=<b/a>
  startup time-to-ready (first 200 of /q/health/ready) and JVM user+sys CPU to ready of the packaged app as a
          pod wakes (migrated external PostgreSQL, migrations and embedded PostgreSQL off; STARTUP_MODE=embedded:
          the zero-setup trial instead), median of 3, on JDK 17, JDK 25, JDK 25 with an AOT cache trained by
          src/main/aot/train-aot-cache.sh (50 chain runs, then 60 s of load), and that cache with C1 only
          (bench/startup.sh; JAVA17, JAVA25, STARTUP_RUNS, STARTUP_PORT, STARTUP_MODE override); last line:
          jvm17_ready_ms=<a> jvm25_ready_ms=<b> aot_ready_ms=<c> aot_cpu_ms=<d>
  wakeup  how fast a new pod reaches full speed (issue 33): a pod started as the image and kubernetes/deployment.yaml
          start it (JDK 25, the image's entrypoint flags, an AOT cache trained by src/main/aot/train-aot-cache.sh as a
          pod runs, the deployment's JAVA_TOOL_OPTIONS, a cgroup with its 1-CPU limit, -XX:MaxRAM=768m for its memory
          limit) on a migrated throw-away PostgreSQL 15, chain3 driven at full load from its first ready 200 for 120 s;
          runs/s and the pod's CPU in 5 s windows; the same for the image's entrypoint alone (image_c2) and plain
          java -jar on JDK 17 and JDK 25, about 12 minutes in all (bench/wakeup.sh; bash bench/wakeup.sh --help lists
          its WAKEUP_* settings); last line, for the deployment's setup:
          ready_cpu_ms=<a> first15_vs_steady=<b> s_to_80pct=<c> steady_runs_per_s=<d>
  chain3 [--pods N]
          end-to-end runs/s of workflow chain3 (3 sequential noop tasks) through the packaged jar in prod mode
          (N pods) on a throw-away, durable PostgreSQL 15, against a plain-JDBC reference service on the same
          database and budget, one load driver for both, measured in alternating rounds (BENCH_ROUNDS, 5) whose
          median ratio is the figure (bench/chain3.sh; bash bench/chain3.sh --help lists its BENCH_* settings);
          last line:
          runs_per_s=<n> ref_runs_per_s=<m> ratio=<n/m> p50_ms=<a> p99_ms=<b> start_per_s=<s> rss_mb=<r>
  chain3-sdk
          chain3 with a third side: the same chain of ext:s1..s3 steps run by a separate worker JVM on the Java SDK
          (DuctorWorker over HTTP, 8 slots, handlers answering {}), on the same pod, PostgreSQL and driver, measured
          in rounds alternating with the in-process side and the plain-JDBC reference (bench/chain3.sh --sdk; its
          --help lists the BENCH_* settings); sdk_vs_inproc and ratio are the rounds' medians; last line:
          runs_per_s=<sdk> inproc_runs_per_s=<i> ref_runs_per_s=<m> sdk_vs_inproc=<sdk/i> ratio=<sdk/m> p50_ms=<a>
          p99_ms=<b> server_cpu_ms_per_step=<c>
  backlog-sdk
          under a backlog, do runs finish in about the order they started (issue 30)? BACKLOG_RUNS (20000) runs of
          chain3-sdk started by 4 HTTP threads while no worker runs, then one SDK worker JVM (8 slots) started and
          the drain timed from that moment, up to BACKLOG_CAP_S (600); from the database, runs ranked by
          created_at: p50/p90 finish of the first 1,000 started and of all, runs and steps done at 25/50/75 % of
          the drain, Spearman's rank correlation of start and finish order (bench/backlog-sdk.sh; its --help lists
          the settings, BACKLOG_ROOT measures another checkout's jar and SDK); last line:
          runs=<n> drain_s=<d> first1000_p50_s=<a> first1000_p90_s=<b> all_p50_s=<c> rank_corr=<r> runs_per_s=<s>
  fanout  the packaged jar's CPU per fan-out item (one task node, handler noop, "forEach": "input.items", no
          maxConcurrency) at 10, 100 and 1,000 items a run on a throw-away, durable PostgreSQL 15, a fixed total of
          items per size after a warm-up at each (bench/fanout.sh; bash bench/fanout.sh --help lists its settings);
          last line:
          cpu_us_per_item_10=<a> cpu_us_per_item_100=<b> cpu_us_per_item_1000=<c> ratio_1000_vs_10=<c/a>
  chaos   the full chaos trial (ChaosIT, whose bounded version runs in ./mvnw verify): 3 pods of the packaged jar on
          one durable PostgreSQL, mixed runs started at a steady pace by clients that retry on another pod with
          the same idempotency key, a random pod SIGKILLed every 15 s (CHAOS_KILLS, default 10) and PostgreSQL
          crash-restarted once (pg_ctl -m immediate); then every accepted run checked; exit status 1 when a check
          failed; last line:
          runs=<n> kills=<k> pg_restarts=<p> lost=<l> stuck=<s> failed=<f> dup=<d> recovery_s=<r>

  failover
          a pg_auto_failover formation on loopback (monitor, primary, synchronous standby; Debian's
          postgresql-15-auto-failover, installed when missing), one pod of the packaged jar in prod mode on the
          multi-host URL with targetServerType=primary, runs started at a steady pace (idempotency keys, 503s
          retried with the same key), FAILOVER_COUNT (3) switches with pg_autoctl perform failover under the load,
          then every acknowledged run checked (bench/failover.sh; bash bench/failover.sh --help lists its settings);
          prints the errors other than 503 it saw; last line:
          acknowledged=<n> lost=<l> stuck=<s> failed=<f> recovery_s=<r>
  hostile the packaged jar in prod mode on a throw-away PostgreSQL 15: tenant A runs small chains at a steady
          pace while tenant B sends every hostile request of issue 28 (huge exponents, deep nesting, huge strings,
          bodies over 1 MiB with and without Content-Length, 300 long polls, 300 streams, 2,000 pending signals,
          run lists over 250 KiB inputs, http steps to loopback and link-local, claims of in-process handlers);
          then the pod's PID and readiness, every answer's kind, and A's runs/s during vs before
          (bench/hostile.sh, bench/hostile/Hostile.java; bash bench/hostile.sh --help); last line:
          hostile_requests=<n> non_problem_answers=<m> pod_alive=<0|1> a_runs_per_s_before=<b> a_runs_per_s_during=<d> during_vs_before=<d/b>
  soak    the packaged jar in prod mode on a throw-away PostgreSQL 15, runs of chain3 started at a steady SOAK_RATE
          (100/s) for SOAK_MINUTES (30) with retention PT1M and a pass every 10 s; every minute the eec_* tables'
          heap, index and total sizes and rows, printed as a table (bench/soak.sh, bench/soak/Soak.java;
          bash bench/soak.sh --help); last line:
          minutes=<m> runs_started=<n> deleted_runs=<d> run_table_kb_first=<a> run_table_kb_last=<b> total_kb_first=<c>
          total_kb_last=<e> growth_last_half_pct=<g>

environment:
  QUARKUS_DATASOURCE_JDBC_URL, QUARKUS_DATASOURCE_USERNAME, QUARKUS_DATASOURCE_PASSWORD
          use this PostgreSQL instead of the embedded one: a scratch database no Ductor pod uses (the
          benchmark writes under tenant ductor-bench, timers also ductor-bench-b, and deletes those rows
          at the end; signals adds a trigger ductor_bench_dispatch on eec_queue_item and drops it at the end)
  PGBENCH
          the pgbench to use (default: pgbench on PATH, else /usr/lib/postgresql/*/bin/pgbench); none: skip
  BENCH_OPTS
          extra -D options for the benchmark (docs/benchmarks.md names the main bench.* keys,
          docs/bench-journal/<scenario>.md every one; chaos: the chaos.* keys)
  BENCH_SKIP_BUILD=1
          chaos: do not package the jar again (it must exist); the test classes are still compiled
  CHAOS_KILLS, CHAOS_PACE, CHAOS_SEED
          chaos: pods killed (default 10, one every 15 s), runs started per second (default 4), the victims' seed
EOF
}

find_pgbench() {
    if [ -n "${PGBENCH+set}" ]; then # explicit choice; PGBENCH=none skips the ceiling
        [ "$PGBENCH" = none ] || echo "$PGBENCH"
        return
    fi
    if command -v pgbench >/dev/null 2>&1; then
        command -v pgbench
        return
    fi
    local candidate
    for candidate in $(ls -d /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V -r); do
        if [ -x "$candidate" ]; then
            echo "$candidate"
            return
        fi
    done
}

# Runs one *Bench class through surefire, logging everything Maven says to $log. The benchmarks live apart from the
# tests, in src/bench/java, which build-helper-maven-plugin adds as a test source root: every build compiles them, but
# surefire's default includes never pick up *Bench and no tier's -Dgroups selects their tag bench, so only a -Dtest
# naming one runs it.
run_bench_class() {
    local class=$1 log=$2
    shift 2
    # shellcheck disable=SC2086
    ./mvnw -B test -Dtest="$class" -Dsurefire.failIfNoSpecifiedTests=false "$@" ${BENCH_OPTS:-} >"$log" 2>&1
}

scenario_ticks() {
    local dir=target/bench
    mkdir -p "$dir"
    local log="$dir/ticks-maven.log" out="$dir/ticks.properties"
    rm -f "$out"
    local pgbench
    pgbench=$(find_pgbench || true)
    if [ -z "$pgbench" ]; then
        echo "pgbench not found (neither on PATH nor /usr/lib/postgresql/*/bin/pgbench, or PGBENCH=none):" \
             "no SQL ceiling; install PostgreSQL's client tools (Debian: postgresql-client) to get one"
    fi
    echo "scenario=ticks log=$log"
    local started=$SECONDS
    if ! run_bench_class TickBench "$log" -Dbench.scenario=ticks -Dbench.out="$PWD/$out" \
            -Dbench.pgbench="$pgbench" -Dbench.sql="$PWD/bench/sql/tick.sql"; then
        echo "benchmark failed; the end of $log:" >&2
        tail -n 40 "$log" >&2
        echo "ticks_per_s=NA ceiling_per_s=NA ratio=NA"
        exit 1
    fi
    if [ ! -s "$out" ] || ! grep -q '^ticks_per_s=' "$out"; then
        echo "the benchmark did not run or wrote no figures (is TickBench compiled? see $log)" >&2
        echo "ticks_per_s=NA ceiling_per_s=NA ratio=NA"
        exit 1
    fi
    grep -v -E '^(ticks_per_s|ceiling_per_s|ratio)=' "$out"
    echo "elapsed_s=$((SECONDS - started))"
    value() { grep -E "^$1=" "$out" | tail -n 1 | cut -d= -f2-; }
    echo "ticks_per_s=$(value ticks_per_s) ceiling_per_s=$(value ceiling_per_s) ratio=$(value ratio)"
}

# A scenario that runs one *Bench class and needs nothing outside the JVM: $1 scenario, $2 class, $3 the keys of
# the last line (space-separated), in order. Prints the other figures, elapsed_s, then the last line.
scenario_simple() {
    local scenario=$1 class=$2 keys=$3
    local dir=target/bench
    mkdir -p "$dir"
    local log="$dir/$scenario-maven.log" out="$dir/$scenario.properties"
    rm -f "$out"
    local na="" key pattern=""
    for key in $keys; do
        na="$na${na:+ }$key=NA"
        pattern="$pattern${pattern:+|}$key"
    done
    echo "scenario=$scenario log=$log"
    local started=$SECONDS
    if ! run_bench_class "$class" "$log" -Dbench.scenario="$scenario" -Dbench.out="$PWD/$out"; then
        echo "benchmark failed; the end of $log:" >&2
        tail -n 40 "$log" >&2
        if [ -s "$out" ]; then
            grep -v -E "^($pattern)=" "$out" || true
        fi
        echo "$na"
        exit 1
    fi
    local first=${keys%% *}
    if [ ! -s "$out" ] || ! grep -q "^$first=" "$out"; then
        echo "the benchmark did not run or wrote no figures (is $class compiled? see $log)" >&2
        echo "$na"
        exit 1
    fi
    grep -v -E "^($pattern)=" "$out"
    echo "elapsed_s=$((SECONDS - started))"
    local last=""
    for key in $keys; do
        last="$last${last:+ }$key=$(grep -E "^$key=" "$out" | tail -n 1 | cut -d= -f2-)"
    done
    echo "$last"
}

# The full chaos trial: ChaosIT through failsafe with more kills and more load than the bounded one of ./mvnw verify.
# It writes its figures to target/bench/chaos.properties, the result line last.
scenario_chaos() {
    local dir=target/bench
    mkdir -p "$dir"
    local log="$dir/chaos-maven.log" out="$PWD/$dir/chaos.properties"
    local na="runs=NA kills=NA pg_restarts=NA lost=NA stuck=NA failed=NA dup=NA recovery_s=NA"
    rm -f "$out"
    local goals=(verify)
    if [ "${BENCH_SKIP_BUILD:-0}" = 1 ]; then
        if [ ! -f target/quarkus-app/quarkus-run.jar ]; then
            echo "BENCH_SKIP_BUILD=1 but target/quarkus-app/quarkus-run.jar is missing" >&2
            echo "$na"
            exit 1
        fi
        goals=(test-compile failsafe:integration-test failsafe:verify)
    fi
    echo "scenario=chaos log=$log"
    local started=$SECONDS status=0
    # shellcheck disable=SC2086
    ./mvnw -B "${goals[@]}" -Dit.test=ChaosIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
        -Dchaos.kills="${CHAOS_KILLS:-10}" -Dchaos.pace="${CHAOS_PACE:-4}" ${CHAOS_SEED:+-Dchaos.seed=$CHAOS_SEED} \
        -Dchaos.out="$out" ${BENCH_OPTS:-} >"$log" 2>&1 || status=$?
    if [ ! -s "$out" ] || ! grep -q '^runs=' "$out"; then
        echo "the trial did not run to its checks; the end of $log:" >&2
        tail -n 60 "$log" >&2
        echo "$na"
        exit 1
    fi
    grep -v '^runs=' "$out"
    echo "elapsed_s=$((SECONDS - started))"
    if [ "$status" != 0 ]; then
        echo "chaos checks failed (pod logs: target/chaos-it/); from $log:" >&2
        sed -n '/chaos check(s) failed/,/^-----/p' "$log" | head -n 80 >&2
    fi
    grep '^runs=' "$out" | tail -n 1
    [ "$status" = 0 ] || exit 1
}

case "${1:-}" in
    ticks)
        scenario_ticks
        ;;
    signals)
        scenario_simple signals SignalBench "signals_per_s p50_ms p99_ms"
        ;;
    startup)
        bash bench/startup.sh
        ;;
    wakeup)
        # exec, as chain3: its own EXIT trap stops the pod, the driver and PostgreSQL it started
        exec bash bench/wakeup.sh "${@:2}"
        ;;
    timers)
        scenario_simple timers TimerBench "claim_ms_empty claim_ms_1m ratio"
        ;;
    chaos)
        scenario_chaos
        ;;
    chain3)
        # exec: a signal to this shell reaches chain3.sh's own trap, which stops what it started
        exec bash bench/chain3.sh "${@:2}"
        ;;
    failover)
        # exec, as chain3: its own EXIT trap stops the pod, the driver and the pg_auto_failover formation
        exec bash bench/failover.sh "${@:2}"
        ;;
    fanout)
        # exec, as chain3: its own EXIT trap stops the pod and PostgreSQL it started
        exec bash bench/fanout.sh "${@:2}"
        ;;
    hostile)
        # exec, as chain3: its own EXIT trap stops the pod and PostgreSQL it started
        exec bash bench/hostile.sh "${@:2}"
        ;;
    soak)
        # exec, as chain3: its own EXIT trap stops the pod, the driver and PostgreSQL it started
        exec bash bench/soak.sh "${@:2}"
        ;;
    chain3-sdk)
        # exec, as chain3: its own EXIT trap stops the pod, the worker and PostgreSQL it started
        exec bash bench/chain3-sdk.sh "${@:2}"
        ;;
    backlog-sdk)
        # exec, as chain3: its own EXIT trap stops the worker, the pod and PostgreSQL it started
        exec bash bench/backlog-sdk.sh "${@:2}"
        ;;
    -h | --help | help)
        usage
        ;;
    *)
        if [ -n "${1:-}" ]; then
            echo "unknown scenario: $1" >&2
        fi
        usage >&2
        exit 2
        ;;
esac
