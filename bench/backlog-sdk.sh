#!/usr/bin/env bash
# backlog-sdk: under a backlog, do runs finish in about the order they started (issue 30)? BACKLOG_RUNS runs of
# chain3-sdk (ext:s1 -> ext:s2 -> ext:s3) are started while no worker runs, then one SDK worker JVM (8 slots) is
# started and the drain is timed from that moment; the order figures are read from the database.
# See docs/benchmarks.md, section `backlog-sdk`. Called by bench/run.sh backlog-sdk. Last line:
#   runs=… drain_s=… first1000_p50_s=… first1000_p90_s=… all_p50_s=… rank_corr=… runs_per_s=…
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
out_dir=$root/target/bench
stem=backlog-sdk # the figures', logs' and PostgreSQL log's file names
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # log, alive, stop_pid, stop_pg, run_child, free_port, wait_http, start_local_pg,
# proc_ticks, locate_jar, sdk_classpath, mint_worker_token, launch_pod

usage() {
    cat <<'EOF'
usage: bench/run.sh backlog-sdk      (or: bash bench/backlog-sdk.sh)

Starts a throw-away PostgreSQL 15 (durability defaults) and one Ductor pod (the packaged jar in prod mode, chain3's
pod settings), registers workflow chain3-sdk (ext:s1 -> ext:s2 -> ext:s3) and starts BACKLOG_RUNS runs of it as fast
as BACKLOG_THREADS HTTP threads can (bench/backlog/StartRuns.java) while no worker runs, so all are queued at once.
Then one worker JVM on the Java SDK (bench/sdk/SdkWorker.java: DuctorWorker, BACKLOG_WORKER_CONCURRENCY slots,
handlers answering {} at once) is started, and the clock starts with it (its JVM's start and the source launch's
compile are inside the figures: worker_ready_s says how long they took). When every run is terminal, or
BACKLOG_CAP_S after the worker's start, bench/backlog/DrainFigures.java reads from the database, in SQL: runs ranked
by created_at (start order); a run's finish is the updated_at of its terminal row, a step's its SUCCEEDED transition.

figures (seconds from the worker's start):
  first1000_p50_s, first1000_p90_s   p50/p90 finish of the first 1,000 runs started (BACKLOG_FIRST)
  last1000_p50_s                     p50 finish of the last 1,000 started
  all_p50_s, all_p90_s               p50/p90 finish of all runs
  drain_s                            until the last run finished (">W": not drained after W s, the cap)
  runs_at_25pct/50pct/75pct          runs finished within a quarter, a half, three quarters of the drain
  steps_at_25pct/50pct/75pct, steps  steps completed by then and in all; steps_per_s, runs_per_s over the drain
  rank_corr                          Spearman's rank correlation of start order and finish order (ties averaged,
                                     runs not finished tie last): 1 in order, 0 unrelated, below 0 reversed
  runs started in order finish in about that order when first1000_p50_s is far below all_p50_s and rank_corr is
  clearly positive; breadth-first (every run's step a before any run's step b) puts them all near the end.
A percentile over runs not finished by the cap reads ">W".

environment (all optional):
  BACKLOG_RUNS         runs started (default 20000)
  BACKLOG_CAP_S        the longest wait for the drain, from the worker's start (default 600)
  BACKLOG_THREADS      HTTP threads starting runs (default 4)
  BACKLOG_FIRST        how many of the first (and last) runs started the first/last figures cover (default 1000)
  BACKLOG_WORKER_CONCURRENCY  the worker's slots (default 8)
  BACKLOG_WORKER_FIRST=1  start the worker (and the clock) before the runs: they queue while it works, as a burst of
                       starts meets a running fleet (default 0: all queued first)
  BACKLOG_ROOT         the repository whose packaged jar (target/quarkus-app) and SDK (sdk/target) are measured,
                       e.g. a git worktree of an older commit (default: this one; each built when missing)
  DUCTOR_JAR           the Ductor jar (default BACKLOG_ROOT's target/quarkus-app/quarkus-run.jar)
  BENCH_SKIP_BUILD=1   never build the jar or the SDK; fail when missing
  BENCH_JVM_OPTS       JVM options of the pod and the worker (default "-XX:MaxRAM=768m -XX:MaxRAMPercentage=75
                       -XX:+UseSerialGC", as chain3)
  JAVA, BENCH_PG_BIN, BENCH_PG_OS_USER, BENCH_READY_TIMEOUT_S   as for chain3 (bash bench/chain3.sh --help)

output: the figures on stdout and in target/bench/backlog-sdk.properties; logs in target/bench/: backlog-sdk-pod.log,
backlog-sdk-worker.log, backlog-sdk-postgres.log, backlog-sdk-build.log, backlog-sdk-sdk-build.log.
Takes about BACKLOG_RUNS / (start rate) + the drain (at most BACKLOG_CAP_S) + a minute of setup.
exit status: 0 every run SUCCEEDED before the cap, 1 otherwise, 2 usage.
EOF
}

case ${1:-} in
    '') ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
esac

runs=${BACKLOG_RUNS:-20000}
cap_s=${BACKLOG_CAP_S:-600}
threads=${BACKLOG_THREADS:-4}
first=${BACKLOG_FIRST:-1000}
concurrency=${BACKLOG_WORKER_CONCURRENCY:-8}
worker_first=${BACKLOG_WORKER_FIRST:-0}
[[ $worker_first =~ ^[01]$ ]] || { echo "BACKLOG_WORKER_FIRST must be 0 or 1" >&2; exit 2; }
backlog_root=$(cd "${BACKLOG_ROOT:-$root}" && pwd)
ready_timeout=${BENCH_READY_TIMEOUT_S:-120}
java=${JAVA:-java}
pg_bin=${BENCH_PG_BIN:-/usr/lib/postgresql/15/bin}
pg_os_user=${BENCH_PG_OS_USER:-ductorbench}
read -r -a jvm_opts <<<"${BENCH_JVM_OPTS--XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+UseSerialGC}"
for n in "$runs" "$cap_s" "$threads" "$first" "$concurrency" "$ready_timeout"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "BACKLOG_RUNS, BACKLOG_CAP_S, BACKLOG_THREADS, BACKLOG_FIRST," \
        "BACKLOG_WORKER_CONCURRENCY and BENCH_READY_TIMEOUT_S must be whole numbers above 0" >&2; exit 2; }
done

mkdir -p "$out_dir"
rm -f "$out_dir"/backlog-sdk.properties "$out_dir"/backlog-sdk-pod.log "$out_dir"/backlog-sdk-worker.log \
    "$out_dir"/backlog-sdk-postgres.log
started=$SECONDS

declare -A fig=()
fig[load_avg_start]=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')
fig[worker_concurrency]=$concurrency
fig[start_threads]=$threads
fig[worker_first]=$worker_first
last_keys=(runs drain_s "first${first}_p50_s" "first${first}_p90_s" all_p50_s rank_corr runs_per_s)

report() {
    local key line="" props=$out_dir/backlog-sdk.properties
    fig[load_avg_end]=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')
    fig[elapsed_s]=$((SECONDS - started))
    : >"$props"
    for key in $(printf '%s\n' "${!fig[@]}" | sort); do
        case " ${last_keys[*]} " in *" $key "*) continue ;; esac
        echo "$key=${fig[$key]}"
        echo "$key=${fig[$key]}" >>"$props"
    done
    for key in "${last_keys[@]}"; do
        line="$line${line:+ }$key=${fig[$key]:-NA}"
        echo "$key=${fig[$key]:-NA}" >>"$props"
    done
    echo "$line"
}

# ---- processes: everything started here is stopped by pid on exit (also on failure, Ctrl-C, SIGTERM) --------

child=""
pod_pid=""
worker_pid=""
used_ports=()
pgdir=""
pg_pid=""
as_pg=()
work=$(mktemp -d /tmp/ductor-backlog-sdk.XXXXXX)

on_exit() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    [ -n "$child" ] && stop_pid "$child" "helper" 10
    stop_pid "$worker_pid" "SDK worker" 20
    # the worker prints its counters as it stops (claims, completions, lease losses)
    [ -f "$out_dir/backlog-sdk-worker.log" ] && fig[worker_stats]=$(sed -n 's/^worker .* stopped: //p' \
        "$out_dir/backlog-sdk-worker.log" | tail -n 1 | tr ' ' '_')
    stop_pid "$pod_pid" "Ductor pod" 60
    stop_pg
    rm -rf "$work"
    report
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- what is measured: BACKLOG_ROOT's jar and SDK -----------------------------------------------------------------

build_root=$backlog_root # locate_jar builds there when the jar is missing
locate_jar "$out_dir/backlog-sdk-build.log" || exit 1
sdk_classpath "$backlog_root" "$out_dir/backlog-sdk-sdk-build.log" || exit 1
fig[ductor_commit]=$(git -C "$(dirname "$jar")" describe --always --dirty --abbrev=7 2>/dev/null || echo NA)
fig[runs_started]=$runs

# ---- PostgreSQL, tokens, the pod ------------------------------------------------------------------------------

start_local_pg || exit 1
db_url=jdbc:postgresql://127.0.0.1:$pg_port/ductor
run_child timeout 180 "$java" -cp "$jdbc_jar" bench/chain3/PgSetup.java "$admin_url" "$db_user" "$db_password" \
    ductor ductor

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/private.pem" 2>/dev/null
openssl pkey -in "$work/private.pem" -pubout -out "$work/public.pem" 2>/dev/null
run_child timeout 120 "$java" bench/chain3/MintTokens.java "$work/private.pem" "$work" ductor-bench bench 7200
mint_worker_token "$work/private.pem" "$work/worker.jwt" bench 7200

free_port
pod_port=$REPLY
pod_log=$out_dir/backlog-sdk-pod.log
log "phase=ductor-start port=$pod_port log=$pod_log"
launch_pod backlog-sdk-pod1 "$db_url" "$pod_port" true "$pod_log"
pod_pid=$REPLY
wait_http "http://127.0.0.1:$pod_port/q/health/ready" "$pod_pid" "$pod_log" "Ductor pod" || exit 1
api=http://127.0.0.1:$pod_port/api/v1/workflows/chain3-sdk

# ---- the worker: started (and the clock with it) after the starts, or before them with BACKLOG_WORKER_FIRST=1 ------

worker_log=$out_dir/backlog-sdk-worker.log
start_worker() {
    local i
    t0_ms=$(date +%s%3N)
    log "phase=worker-start concurrency=$concurrency log=$worker_log cap=${cap_s}s"
    setsid "$java" "${jvm_opts[@]}" -cp "$SDK_CLASSPATH" bench/sdk/SdkWorker.java "http://127.0.0.1:$pod_port" \
        "$work/worker.jwt" "$concurrency" >"$worker_log" 2>&1 &
    worker_pid=$!
    for ((i = 0; i < ready_timeout * 10; i++)); do # start() returns once the server answered its first claim
        grep -q ' started: ' "$worker_log" 2>/dev/null && break
        alive "$worker_pid" || { log "SDK worker exited; the end of $worker_log:"; tail -n 40 "$worker_log" >&2; return 1; }
        sleep 0.1
    done
    grep -q ' started: ' "$worker_log" || { log "SDK worker not started after ${ready_timeout}s"; return 1; }
    fig[worker_ready_s]=$(awk -v a="$t0_ms" -v b="$(date +%s%3N)" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
}

# ---- the backlog: every run started before any worker runs (BACKLOG_WORKER_FIRST=1: while it runs) ------------

[ "$worker_first" = 0 ] || start_worker || exit 1

log "phase=start runs=$runs threads=$threads"
rc=0
run_child "$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC bench/backlog/StartRuns.java \
    --register-url "$api" --admin-token "$work/admin.jwt" \
    --register-body '{"name":"chain3-sdk","nodes":[{"id":"a","type":"task","handler":"ext:s1"},{"id":"b","type":"task","handler":"ext:s2","dependsOn":["a"]},{"id":"c","type":"task","handler":"ext:s3","dependsOn":["b"]}]}' \
    --start-url "$api/runs" --client-token "$work/client.jwt" --runs "$runs" --threads "$threads" \
    >"$work/start.out" || rc=$?
for pair in $(cat "$work/start.out" 2>/dev/null); do
    fig[${pair%%=*}]=${pair#*=}
done
[ "$rc" -eq 0 ] || { log "starting the runs failed (rc $rc)"; exit 1; }
[ "$worker_first" = 1 ] || start_worker || exit 1

# ---- the drain: waited for and read from the database ----------------------------------------------------------

rc=0
run_child "$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$jdbc_jar" bench/backlog/DrainFigures.java \
    --jdbc-url "$db_url" --user "$db_user" --password "$db_password" --t0-ms "$t0_ms" --expect "$runs" \
    --cap-s "$cap_s" --first "$first" >"$work/drain.out" || rc=$?
while IFS='=' read -r key value; do
    [ -n "$key" ] && fig[$key]=$value
done <"$work/drain.out"
[ -s "$work/drain.out" ] || { log "no figures from the drain (rc $rc)"; exit 1; }
exit "$rc"
