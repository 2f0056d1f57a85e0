#!/usr/bin/env bash
# fanout: the server's CPU per fan-out item at 10, 100 and 1,000 items a run (issue 29: a tick over a large fan-out must
# not cost in proportion to the whole run for each result; goal: the cost per item at 1,000 at most 2x the cost at 10).
# See docs/benchmarks.md, section `fanout`. Called by bench/run.sh fanout.
#
# One invocation: fresh PostgreSQL 15 (durability defaults) -> one Ductor pod (packaged jar, prod mode, chain3's pod
# settings) -> workflow fanout: one task node, handler noop (in-process), "forEach": "input.items", no maxConcurrency
# -> a warm-up pass over every size first (so the JIT's work does not fall on the size measured first), then for each
# size N in 10, 100, 1000: warm-up runs again, then measured runs of N items each (a fixed total of items per
# size, so BENCH_ITEMS / N runs), started by bench/chain3/Driver.java --items N and waited for until all are terminal;
# the pod's utime+stime (/proc/<pid>/stat) over exactly the measured phase (the driver's phase-file handshake)
# divided by the items run. Progress goes to stderr; stdout carries only the figures, the last line being
#   cpu_us_per_item_10=<a> cpu_us_per_item_100=<b> cpu_us_per_item_1000=<c> ratio_1000_vs_10=<c/a>
#
# The PostgreSQL start, the process handling and the pod's settings are copied from bench/chain3-sdk.sh (itself a
# copy of bench/chain3.sh's); keep them in step when they change there.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
out_dir=$root/target/bench
stem=fanout # the figures' and PostgreSQL log's file names
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # log, alive, stop_pid, stop_pg, run_child, free_port, wait_http, start_local_pg, proc_ticks

usage() {
    cat <<'EOF2'
usage: bench/run.sh fanout      (or: bash bench/fanout.sh)

environment (all optional):
  DUCTOR_JAR           the Ductor jar (default target/quarkus-app/quarkus-run.jar, built when missing)
  BENCH_SKIP_BUILD=1   never build the jar; fail when it is missing
  BENCH_SIZES          the fan-out sizes (default "10 100 1000"; the last line needs 10, 100 and 1000)
  BENCH_ITEMS          measured items per size (default 8000: 800 runs of 10, 80 of 100, 8 of 1,000)
  BENCH_WARMUP_ITEMS   warm-up items per size, not counted, run twice: in a first pass over every size, and again
                       just before the size is measured (default 4000)
  BENCH_MAX_CONCURRENCY  the node's maxConcurrency (default 0: none, every item dispatched at once)
  BENCH_TIMEOUT_S      bound of each warm-up and measured batch (default 900)
  BENCH_STARTERS       starter threads of the driver (default 4)
  BENCH_JVM_OPTS       JVM options of the pod (default "-XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+UseSerialGC")
  BENCH_POD_JFR=1      record the pod with JFR (target/bench/fanout-pod.jfr) to see where the CPU goes
  JAVA, BENCH_PG_BIN, BENCH_PG_OS_USER, BENCH_READY_TIMEOUT_S   as for chain3

output: the figures on stdout and in target/bench/fanout.properties; logs in target/bench/: fanout-pod.log,
fanout-postgres.log, fanout-build.log, fanout-driver-<N>.log, fanout-driver-warmup-<N>.log.
exit status: 0 all measured runs SUCCEEDED in time, 1 otherwise, 2 usage.
EOF2
}

case ${1:-} in
    '') ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
esac

read -r -a sizes <<<"${BENCH_SIZES:-10 100 1000}"
items_total=${BENCH_ITEMS:-8000}
warmup_items=${BENCH_WARMUP_ITEMS:-4000}
timeout_s=${BENCH_TIMEOUT_S:-900}
starters=${BENCH_STARTERS:-4}
ready_timeout=${BENCH_READY_TIMEOUT_S:-120}
java=${JAVA:-java}
pg_bin=${BENCH_PG_BIN:-/usr/lib/postgresql/15/bin}
pg_os_user=${BENCH_PG_OS_USER:-ductorbench}
max_concurrency=${BENCH_MAX_CONCURRENCY:-0}
read -r -a jvm_opts <<<"${BENCH_JVM_OPTS--XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+UseSerialGC}"
driver_jvm_opts=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
for n in "${sizes[@]}" "$items_total" "$warmup_items" "$max_concurrency" "$timeout_s" "$starters" "$ready_timeout"; do
    [[ $n =~ ^[0-9]+$ ]] || { echo "BENCH_SIZES, BENCH_ITEMS, BENCH_WARMUP_ITEMS, BENCH_TIMEOUT_S, BENCH_STARTERS and" \
        "BENCH_READY_TIMEOUT_S must be whole numbers" >&2; exit 2; }
done

mkdir -p "$out_dir"
rm -f "$out_dir"/fanout.properties "$out_dir"/fanout-pod.log "$out_dir"/fanout-postgres.log "$out_dir"/fanout-driver-*.log
started=$SECONDS
clk_tck=$(getconf CLK_TCK)

declare -A fig=()
fig[items_per_size]=$items_total
fig[warmup_items_per_size]=$warmup_items
fig[max_concurrency]=$max_concurrency
fig[load_avg_start]=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')

report() {
    local key line="" props=$out_dir/fanout.properties
    if [[ ${fig[cpu_us_per_item_10]:-NA} =~ ^[0-9.]+$ && ${fig[cpu_us_per_item_1000]:-NA} =~ ^[0-9.]+$ ]]; then
        fig[ratio_1000_vs_10]=$(awk -v a="${fig[cpu_us_per_item_10]}" -v b="${fig[cpu_us_per_item_1000]}" \
            'BEGIN { if (a > 0) printf "%.2f", b / a; else print "NA" }')
    fi
    fig[load_avg_end]=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')
    fig[elapsed_s]=$((SECONDS - started))
    : >"$props"
    for key in $(printf '%s\n' "${!fig[@]}" | sort); do
        case $key in cpu_us_per_item_10 | cpu_us_per_item_100 | cpu_us_per_item_1000 | ratio_1000_vs_10) continue ;; esac
        echo "$key=${fig[$key]}"
        echo "$key=${fig[$key]}" >>"$props"
    done
    for key in cpu_us_per_item_10 cpu_us_per_item_100 cpu_us_per_item_1000 ratio_1000_vs_10; do
        line="$line${line:+ }$key=${fig[$key]:-NA}"
        echo "$key=${fig[$key]:-NA}" >>"$props"
    done
    echo "$line"
}

# ---- processes: everything started here is stopped by pid on exit (also on failure, Ctrl-C, SIGTERM) --------

child=""
pod_pid=""
watch_pid=""
used_ports=()
pgdir=""
pg_pid=""
as_pg=()
work=$(mktemp -d /tmp/ductor-fanout.XXXXXX)




on_exit() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    [ -n "$child" ] && stop_pid "$child" "helper" 10
    [ -n "$watch_pid" ] && { kill "$watch_pid" 2>/dev/null; wait "$watch_pid" 2>/dev/null; }
    stop_pid "$pod_pid" "Ductor pod" 60
    stop_pg
    rm -rf "$work"
    report
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM




# ---- the Ductor jar and the JDBC driver beside it ----------------------------------------------------------------

locate_jar || exit 1 # bench/lib.sh: the jar (built when missing) and its PostgreSQL driver
fig[ductor_commit]=$(git -C "$(dirname "$jar")" describe --always --dirty --abbrev=7 2>/dev/null || echo NA)

# ---- PostgreSQL (as bench/chain3.sh starts it) -------------------------------------------------------------------

start_local_pg || exit 1
db_base=jdbc:postgresql://127.0.0.1:$pg_port
run_child timeout 180 "$java" -cp "$jdbc_jar" bench/chain3/PgSetup.java "$db_base/postgres" "$db_user" "$db_password" \
    fanout fanout

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/private.pem" 2>/dev/null
openssl pkey -in "$work/private.pem" -pubout -out "$work/public.pem" 2>/dev/null
run_child timeout 120 "$java" bench/chain3/MintTokens.java "$work/private.pem" "$work/fanout" ductor-bench bench 7200

# ---- the pod -----------------------------------------------------------------------------------------------------

pod_log=$out_dir/fanout-pod.log
free_port
pod_port=$REPLY
pod_jfr=()
if [ "${BENCH_POD_JFR:-0}" = 1 ]; then
    rm -f "$out_dir/fanout-pod.jfr"
    pod_jfr=("-XX:StartFlightRecording=filename=$out_dir/fanout-pod.jfr,settings=profile,dumponexit=true")
fi
log "phase=ductor-start port=$pod_port log=$pod_log"
QUARKUS_DATASOURCE_JDBC_URL=$db_base/fanout QUARKUS_DATASOURCE_USERNAME=$db_user \
    QUARKUS_DATASOURCE_PASSWORD=$db_password QUARKUS_DATASOURCE_JDBC_MAX_SIZE=10 \
    DUCTOR_EMBEDDED_ENABLED=false QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT=$pod_port QUARKUS_FLYWAY_MIGRATE_AT_START=true \
    MP_JWT_VERIFY_PUBLICKEY_LOCATION=$work/public.pem MP_JWT_VERIFY_ISSUER=ductor-bench \
    DUCTOR_WORKER_THREADS=8 DUCTOR_POD_NAME=fanout-pod1 \
    setsid "$java" "${jvm_opts[@]}" "${pod_jfr[@]}" -jar "$jar" >"$pod_log" 2>&1 &
pod_pid=$!
wait_http "http://127.0.0.1:$pod_port/q/health/ready" "$pod_pid" "$pod_log" "Ductor pod" || exit 1


concurrency=""
[ "$max_concurrency" = 0 ] || concurrency=",\"maxConcurrency\":$max_concurrency"
body='{"name":"fanout","nodes":[{"id":"pick","type":"task","handler":"noop","forEach":"input.items"'$concurrency'}]}'
api=http://127.0.0.1:$pod_port/api/v1/workflows/fanout

# drive <n> <runs> <warmup> <log> [driver options...]: the driver against the pod, runs of n items each
drive() {
    local n=$1 runs=$2 warmup=$3 driver_log=$4
    shift 4
    run_child "$java" "${driver_jvm_opts[@]}" -cp "$jdbc_jar" bench/chain3/Driver.java --label "fanout$n" \
        --start-urls "$api/runs" --client-token "$work/fanout/client.jwt" --jdbc-url "$db_base/fanout" \
        --db-user "$db_user" --db-password "$db_password" \
        --poll-sql "SELECT run_id::text, status, (extract(epoch FROM updated_at) * 1000000)::bigint
  FROM eec_workflow_run WHERE run_id = ANY(CAST(? AS uuid[])) AND status <> 'RUNNING'" \
        --runs "$runs" --warmup "$warmup" --starters "$starters" --timeout-s "$timeout_s" \
        --items "$n" --pids "$pod_pid" --pg-pid "$pg_pid" --clk-tck "$clk_tck" \
        --register-url "$api" --admin-token "$work/fanout/admin.jwt" --register-body "$body" "$@" 2>"$driver_log"
}

final_rc=0
# 1. warm-up at every size, nothing measured (--runs 0)
for n in "${sizes[@]}"; do
    warmup=$(((warmup_items + n - 1) / n))
    log "phase=warmup-$n runs=$warmup"
    rc=0
    drive "$n" 0 "$warmup" "$out_dir/fanout-driver-warmup-$n.log" --out "$work/warmup-$n.out" || rc=$?
    [ "$rc" -eq 0 ] || { log "warm-up at size $n failed (rc $rc); the end of $out_dir/fanout-driver-warmup-$n.log:"
        tail -n 20 "$out_dir/fanout-driver-warmup-$n.log" >&2; exit 1; }
done
# 2. each size: its warm-up again, then the measured runs
for n in "${sizes[@]}"; do
    runs=$(((items_total + n - 1) / n))
    warmup=$(((warmup_items + n - 1) / n))
    phase=$work/phase-$n
    # the pod's CPU over exactly the measured phase: "warm" just before it (answered "go"), "done" just after
    (
        until [ "$(cat "$phase" 2>/dev/null)" = warm ]; do sleep 0.01; done
        proc_ticks "$pod_pid" >"$work/ticks0-$n"
        cut -d' ' -f1 /proc/loadavg >"$work/load0-$n"
        echo go >"$phase.tmp" && mv "$phase.tmp" "$phase"
        until [ "$(cat "$phase" 2>/dev/null)" = done ]; do sleep 0.02; done
        proc_ticks "$pod_pid" >"$work/ticks1-$n"
        cut -d' ' -f1 /proc/loadavg >"$work/load1-$n"
    ) &
    watch_pid=$!
    log "phase=size-$n runs=$runs warmup=$warmup"
    rc=0
    drive "$n" "$runs" "$warmup" "$out_dir/fanout-driver-$n.log" --out "$work/driver-$n.out" --phase-file "$phase" \
        || rc=$?
    kill "$watch_pid" 2>/dev/null || true
    wait "$watch_pid" 2>/dev/null || true
    watch_pid=""
    [ "$rc" -ne 3 ] || { log "the driver could not start runs; the end of $out_dir/fanout-driver-$n.log:"
        tail -n 20 "$out_dir/fanout-driver-$n.log" >&2; exit 1; }
    [ "$rc" -eq 0 ] || { final_rc=1; log "size $n: not every measured run SUCCEEDED in time (see $out_dir/fanout-driver-$n.log)"; }
    completed=$(sed -n 's/^completed=//p' "$work/driver-$n.out" 2>/dev/null || true)
    fig[runs_$n]=$runs
    fig[completed_$n]=${completed:-NA}
    fig[measured_s_$n]=$(sed -n 's/^measured_s=//p' "$work/driver-$n.out" 2>/dev/null || echo NA)
    fig[pg_cpu_s_$n]=$(sed -n 's/^pg_cpu_s=//p' "$work/driver-$n.out" 2>/dev/null || echo NA)
    fig[jit_cpu_s_$n]=$(sed -n 's/^jit_cpu_s=//p' "$work/driver-$n.out" 2>/dev/null || echo NA)
    fig[load_avg_$n]=$(cat "$work/load0-$n" 2>/dev/null || echo NA)/$(cat "$work/load1-$n" 2>/dev/null || echo NA)
    t0=$(cat "$work/ticks0-$n" 2>/dev/null || echo NA)
    t1=$(cat "$work/ticks1-$n" 2>/dev/null || echo NA)
    if [[ $t0 =~ ^[0-9]+$ && $t1 =~ ^[0-9]+$ && ${completed:-x} =~ ^[0-9]+$ ]] && [ "$completed" -gt 0 ]; then
        fig[server_cpu_s_$n]=$(awk -v a="$t0" -v b="$t1" -v t="$clk_tck" 'BEGIN { printf "%.2f", (b - a) / t }')
        fig[cpu_us_per_item_$n]=$(awk -v a="$t0" -v b="$t1" -v t="$clk_tck" -v c="$completed" -v n="$n" \
            'BEGIN { printf "%.1f", (b - a) / t * 1000000 / (c * n) }')
        # without the JIT compilers' CPU (what is left of the warm-up's work, falling unevenly on the sizes)
        jit_s=${fig[jit_cpu_s_$n]}
        [[ $jit_s =~ ^[0-9.]+$ ]] && fig[cpu_us_per_item_nojit_$n]=$(awk -v a="$t0" -v b="$t1" -v t="$clk_tck" \
            -v j="$jit_s" -v c="$completed" -v n="$n" 'BEGIN { printf "%.1f", ((b - a) / t - j) * 1000000 / (c * n) }')
        pg_s=${fig[pg_cpu_s_$n]}
        [[ $pg_s =~ ^[0-9.]+$ ]] && fig[pg_cpu_us_per_item_$n]=$(awk -v p="$pg_s" -v c="$completed" -v n="$n" \
            'BEGIN { printf "%.1f", p * 1000000 / (c * n) }')
    fi
    log "phase=size-$n done rc=$rc completed=${completed:-NA} cpu_us_per_item=${fig[cpu_us_per_item_$n]:-NA}"
done

exit "$final_rc"
