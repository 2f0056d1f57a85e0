#!/usr/bin/env bash
# chain3: end-to-end runs/s of Ductor (the packaged jar, prod mode, over HTTP, on a durable PostgreSQL) against a
# plain-JDBC reference service doing the same work on the same PostgreSQL with the same budget, measured by the
# same driver. Workload: a workflow of three sequential noop tasks. See docs/benchmarks.md, section `chain3`.
# Called by bench/run.sh chain3 [--pods N], and with --sdk by bench/run.sh chain3-sdk (bench/chain3-sdk.sh).
#
# One invocation: fresh PostgreSQL (or BENCH_JDBC_URL) -> reference started and warmed up, then paused -> Ductor
# pod(s) started and warmed up, then paused -> BENCH_ROUNDS rounds, each measuring N runs of either side while the
# other is paused, in the order ref-Ductor, Ductor-ref, ... -> stop everything. The ratio is the median of the
# rounds' ratios. Progress goes to stderr; stdout carries only the figures, one key=value per line, the last being
#   runs_per_s=<n> ref_runs_per_s=<m> ratio=<n/m> p50_ms=<a> p99_ms=<b> start_per_s=<s> rss_mb=<r>
# or, with --sdk (a third side: the same chain of ext: steps run by a Java SDK worker JVM),
#   runs_per_s=<sdk> inproc_runs_per_s=<i> ref_runs_per_s=<m> sdk_vs_inproc=<sdk/i> ratio=<sdk/m> p50_ms=<a> p99_ms=<b>
#   server_cpu_ms_per_step=<c>
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
out_dir=$root/target/bench

usage() {
    cat <<'EOF'
usage: bench/run.sh chain3 [--pods N]      (or: bash bench/chain3.sh [--pods N])

Starts a throw-away PostgreSQL 15 (durability defaults: fsync, synchronous_commit, full_page_writes on), the
reference service (bench/chain3/RefService.java) and N Ductor pods (default 1) on database "ductor", and drives
both with the same load driver (bench/chain3/Driver.java): runs of workflow chain3 (3 sequential noop tasks),
started over HTTP by a closed loop, completion read from the database. Each side is warmed up, then the sides are
measured in alternating rounds (ref-Ductor, Ductor-ref, ...), the side not measured paused with SIGSTOP. A shared
host's speed drifts by up to 1.7 times within minutes, so one phase of each decided the ratio by the order they ran
in; the median round's ratio does not depend on it. ratio_rounds lists every round's, ratio_min/ratio_max their
spread, *_p99_ms_rounds each round's p99, cpu_ratio_by_driver Ductor's CPU a run over the reference's, each
divided by the driver's CPU in its phase.

options:
  --pods N   Ductor JVMs (1..9) on the one database, each on its own port; the first migrates; starts are spread
             round-robin over them (the reference is always one process)
  --sdk      chain3-sdk: a third side, "sdk": workflow chain3-sdk (ext:s1 -> ext:s2 -> ext:s3) on the same pod(s),
             its steps run by one separate worker JVM built on the Java SDK (bench/sdk/SdkWorker.java, DuctorWorker,
             BENCH_WORKER_CONCURRENCY slots, default 8, handlers answering {} at once) over HTTP; the in-process
             side ("inproc") is chain3 as without --sdk. The sides rotate in each round (ref, inproc, sdk, then the
             reverse), each measured while the others are stopped (the worker JVM with its side). Ratios are the
             rounds' medians: sdk_vs_inproc (sdk over in-process), ratio (sdk over the reference),
             inproc_ratio (in-process over the reference); server_cpu_ms_per_step is the pods' CPU per sdk step
             (inproc_server_cpu_ms_per_step the same for in-process steps), worker_cpu_ms_per_step the worker JVM's
  -h, --help this text

environment (all optional):
  DUCTOR_JAR           the Ductor jar (default: target/quarkus-app/quarkus-run.jar of this repository, built
                       with ./mvnw -B -q package -DskipTests when missing); the PostgreSQL JDBC driver is taken
                       from lib/main/ beside it
  BENCH_SKIP_BUILD=1   never build; fail when the jar is missing
  BENCH_RUNS           measured runs per side and round (default 6000)
  BENCH_ROUNDS         measured rounds (default 5); runs_per_s, the latencies and start_per_s are the rounds'
                       medians, rss_mb their maximum, the CPU figures their sums
  BENCH_WARMUP         warm-up runs per side, started and waited for, not counted (default 2000: with 500 the JIT
                       compilers were still about a third of Ductor's JVM CPU in the measured phase; the figure is
                       meant to be the steady state, as peers publish theirs)
  BENCH_WARMUP_S       the warm-up also lasts at least this many seconds per side, in batches of BENCH_WARMUP runs
                       (default 90: with 2,000 runs alone, about 15 s here, the JIT compilers were still ~45 % of
                       Ductor's JVM CPU in the measured phase; the figures ductor_jit_cpu_s and ref_jit_cpu_s say how
                       much compiling was left in it)
  BENCH_TIMEOUT_S      bound of each phase (warm-up, measured), from its first start (default 600); on a timeout
                       the figures of what completed are printed and the exit status is non-zero
  BENCH_STARTERS       starter threads of the closed loop (default 4)
  BENCH_ONLY           ductor | ref: run just that side (ratio=NA)
  BENCH_PROFILE=1      profile the first measured round of each side: pg_stat_statements top 25 (target/bench/chain3-pgss.txt, and
                       chain3-ref-pgss.txt for the reference), pg_stat_activity every 200 ms with a summary
                       (chain3-activity.txt, chain3-ref-activity.txt), and a JFR recording per Ductor pod
                       (chain3-pod<N>.jfr, settings=profile, written when the pod stops; the SDK worker's: chain3-sdk-worker.jfr)
  BENCH_JVM_OPTS       JVM options for the Ductor pods (default "-XX:MaxRAM=768m -XX:MaxRAMPercentage=75
                       -XX:+UseSerialGC": the heap a pod of kubernetes/deployment.yaml gets, whose 768Mi limit with the
                       image's MaxRAMPercentage=75 gives a 576 MB maximum and the JVM's default 1/64 a 12 MB initial
                       heap; below 1792 MB of memory the JVM's own ergonomics choose SerialGC. A bare -Xmx576m on this
                       24 GiB host started the heap at 384 MB, which no pod does, and that was most of its RSS)
  BENCH_SLOW_PATHS=1   the Ductor pods take the plain paths (-Dductor.commit.strategy=inline
                       -Dductor.dispatch.local=queue): the cost of simplicity, against the same reference; the
                       figures say slow_paths=1
  BENCH_REF_JVM_OPTS   JVM options for the reference service (default: the same as the pods')
  BENCH_DRIVER_JVM_OPTS  JVM options of the load driver (default "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC": with
                       C2, compiling the JDK HTTP client's deep call stack keeps a compiler thread busy for ~3 CPU
                       seconds into the measured phase on this 2-core machine, CPU taken from the system under test;
                       C1 code is fast enough for a load generator and halves its CPU per start)
  BENCH_READY_TIMEOUT_S  how long a pod (or the reference) may take to answer ready (default 120)
  JAVA                 the java launcher for everything (default: java on PATH; JDK 17+)
  BENCH_PG_BIN         PostgreSQL server binaries (default /usr/lib/postgresql/15/bin; installed with apt-get
                       install postgresql-15 when missing)
  BENCH_PG_CONF        extra lines for the throw-away server's postgresql.conf (profiling: auto_explain and the
                       like; never its durability)
  BENCH_PG_OS_USER     the unprivileged OS user PostgreSQL runs as when this script runs as root (default
                       ductorbench, created as a system user when missing)
  BENCH_JDBC_URL       use this PostgreSQL server instead of starting one, e.g. jdbc:postgresql://db:5432/postgres
                       (any database the user may connect to); BENCH_DB_USER, BENCH_DB_PASSWORD its credentials.
                       The databases BENCH_DUCTOR_DB and BENCH_REF_DB must exist or the user must be allowed to
                       create them (CREATE DATABASE); give Ductor's a fresh, scratch one (the benchmark writes
                       tenant "bench" and deletes nothing); the reference's table ref_run is dropped and
                       recreated. CHECKPOINT and pg_stat_statements_reset() need superuser (else skipped);
                       BENCH_PROFILE needs pg_stat_statements in shared_preload_libraries.
  BENCH_PG_PID         with BENCH_JDBC_URL on this host: the postmaster's pid, for the PostgreSQL CPU figures
                       (else NA)
  BENCH_DUCTOR_DB, BENCH_REF_DB   database names (default ductor, ref)

output: the figures on stdout and in target/bench/chain3.properties; logs in target/bench/: chain3-pod<N>.log,
chain3-ref.log, chain3-postgres.log (the throw-away server's log), chain3-build.log.
exit status: 0 all measured runs SUCCEEDED in time, 1 otherwise (timeout, a failed run, a pod not ready), 2 usage.
EOF
}

pods=1
sdk=0
while [ $# -gt 0 ]; do
    case $1 in
        --sdk) sdk=1; shift ;;
        --pods)
            [ $# -ge 2 ] || { echo "--pods needs a number" >&2; exit 2; }
            pods=$2
            shift 2
            ;;
        --pods=*) pods=${1#--pods=}; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ $pods =~ ^[1-9]$ ]] || { echo "--pods must be a number from 1 to 9" >&2; exit 2; }

runs=${BENCH_RUNS:-6000}
warmup=${BENCH_WARMUP:-2000}
warmup_min_s=${BENCH_WARMUP_S:-90}
rounds=${BENCH_ROUNDS:-5}
timeout_s=${BENCH_TIMEOUT_S:-600}
starters=${BENCH_STARTERS:-4}
only=${BENCH_ONLY:-}
profile=${BENCH_PROFILE:-0}
ready_timeout=${BENCH_READY_TIMEOUT_S:-120}
java=${JAVA:-java}
pg_bin=${BENCH_PG_BIN:-/usr/lib/postgresql/15/bin}
pg_os_user=${BENCH_PG_OS_USER:-ductorbench}
ductor_db=${BENCH_DUCTOR_DB:-ductor}
ref_db=${BENCH_REF_DB:-ref}
read -r -a jvm_opts <<<"${BENCH_JVM_OPTS--XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+UseSerialGC}"
read -r -a ref_jvm_opts <<<"${BENCH_REF_JVM_OPTS-${jvm_opts[*]}}"
read -r -a driver_jvm_opts <<<"${BENCH_DRIVER_JVM_OPTS--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"
read -r -a worker_jvm_opts <<<"${BENCH_WORKER_JVM_OPTS-${jvm_opts[*]}}"
# The pods' plain paths (results through the inbox and a coordinator tick, every step through the queue and a claim):
# measured against the same reference, the figure says what the fast paths are worth.
slow_paths=${BENCH_SLOW_PATHS:-0}
[ "$slow_paths" = 1 ] && jvm_opts+=(-Dductor.commit.strategy=inline -Dductor.dispatch.local=queue)
worker_concurrency=${BENCH_WORKER_CONCURRENCY:-8}
[[ $worker_concurrency =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_WORKER_CONCURRENCY must be a whole number > 0" >&2; exit 2; }
case $only in '' | ductor | ref | sdk) ;; *) echo "BENCH_ONLY must be ductor, ref or sdk" >&2; exit 2 ;; esac
[ "$only" != sdk ] || [ "$sdk" = 1 ] || { echo "BENCH_ONLY=sdk needs --sdk" >&2; exit 2; }
for n in "$runs" "$warmup" "$warmup_min_s" "$timeout_s" "$starters" "$ready_timeout" "$rounds"; do
    [[ $n =~ ^[0-9]+$ ]] || { echo "BENCH_RUNS, BENCH_WARMUP, BENCH_TIMEOUT_S, BENCH_STARTERS," \
        "BENCH_READY_TIMEOUT_S and BENCH_ROUNDS must be whole numbers" >&2; exit 2; }
done
[ "$runs" -gt 0 ] && [ "$starters" -gt 0 ] && [ "$rounds" -gt 0 ] \
    || { echo "BENCH_RUNS, BENCH_STARTERS and BENCH_ROUNDS must be > 0" >&2; exit 2; }

mkdir -p "$out_dir"
# what an earlier invocation left would read as this one's
stem=$([ "$sdk" = 1 ] && echo chain3-sdk || echo chain3) # the figures' and PostgreSQL log's file names
rm -f "$out_dir"/chain3-sdk.properties "$out_dir"/chain3-sdk-worker.log "$out_dir"/chain3.properties "$out_dir"/chain3-pod*.log "$out_dir"/chain3-pod*.jfr "$out_dir"/chain3-*pgss.txt \
    "$out_dir"/chain3-*activity.txt "$out_dir"/chain3-ref.log "$out_dir"/chain3-postgres.log
started=$SECONDS
clk_tck=$(getconf CLK_TCK)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # log, alive, stop_pid, stop_pg, run_child, free_port, wait_http, start_local_pg,
# proc_ticks, locate_jar, sdk_classpath, mint_worker_token, launch_pod
loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null | tr ' ' '/'; } # the host's load: 1, 5 and 15 min averages

# ---- figures: filled as the phases end, printed (and written) by the exit trap, whatever happened -------------

declare -A fig=()
last_keys=(runs_per_s ref_runs_per_s ratio p50_ms p99_ms start_per_s rss_mb)
[ "$sdk" = 0 ] || last_keys=(runs_per_s inproc_runs_per_s ref_runs_per_s sdk_vs_inproc ratio p50_ms p99_ms server_cpu_ms_per_step)
extra_keys=(ref_p50_ms ref_p99_ms ref_start_per_s ref_rss_mb pods runs warmup
    ref_completed ref_failed ref_measured_s ref_cpu_s ref_pg_cpu_s ref_jit_cpu_s ref_cpu_ms_per_run ref_driver_cpu_s
    ref_host_busy_cpu_s ref_host_steal_cpu_s
    ductor_completed ductor_failed ductor_measured_s ductor_jvm_cpu_s ductor_pg_cpu_s ductor_jit_cpu_s ductor_cpu_ms_per_run
    ductor_driver_cpu_s ductor_host_busy_cpu_s ductor_host_steal_cpu_s ductor_max_ms ref_max_ms ductor_commit slow_paths)
sides=()
if [ -n "$only" ]; then
    sides=("$only")
else
    sides=(ref ductor)
    [ "$sdk" = 0 ] || sides+=(sdk)
fi
has_side() { case " ${sides[*]} " in *" $1 "*) return 0 ;; esac; return 1; }
# what a side's headline figures are called: without --sdk Ductor's are the bare names; with it the sdk side's are
# and the in-process side's carry inproc_
head_pre() {
    case $sdk:$1 in
        *:ref) echo ref_ ;;
        0:ductor | 1:sdk) echo "" ;;
        1:ductor) echo inproc_ ;;
    esac
}
cpu_pre() { case $1 in ref) echo ref_ ;; sdk) echo sdk_ ;; *) echo ductor_ ;; esac; }
fig[pods]=$pods
fig[load_start]=$(loadavg)
fig[rounds]=$rounds
fig[runs]=$runs
fig[warmup]=$warmup

# absorb <driver out file> <ductor|ref>: the driver's generic keys, named for the side they measured
absorb() {
    local file=$1 side=$2 key value name
    [ -s "$file" ] || return 0
    while IFS='=' read -r key value; do
        [ -n "$key" ] || continue
        case $side:$key in
            *:runs) continue ;;
            *:runs_per_s | *:p50_ms | *:p99_ms | *:start_per_s | *:rss_mb) name=$(head_pre "$side")$key ;;
            ref:jvm_cpu_s) name=ref_cpu_s ;;
            *) name=$(cpu_pre "$side")$key ;;
        esac
        fig[$name]=$value
    done <"$file"
}

report() {
    local key line=""
    if [ -z "${fig[ratio]:-}" ] && [[ ${fig[runs_per_s]:-NA} =~ ^[0-9.]+$ && ${fig[ref_runs_per_s]:-NA} =~ ^[0-9.]+$ ]]; then
        fig[ratio]=$(awk -v a="${fig[runs_per_s]}" -v b="${fig[ref_runs_per_s]}" \
            'BEGIN { if (b > 0) printf "%.2f", a / b; else print "NA" }')
    fi
    fig[elapsed_s]=$((SECONDS - started))
    fig[load_end]=$(loadavg)
    local props=$out_dir/$stem.properties
    : >"$props"
    for key in "${extra_keys[@]}"; do
        [ -n "${fig[$key]:-}" ] || continue
        echo "$key=${fig[$key]}"
        echo "$key=${fig[$key]}" >>"$props"
    done
    for key in $(printf '%s\n' "${!fig[@]}" | sort); do # whatever else the drivers reported
        case " ${extra_keys[*]} ${last_keys[*]} elapsed_s " in *" $key "*) continue ;; esac
        echo "$key=${fig[$key]}"
        echo "$key=${fig[$key]}" >>"$props"
    done
    echo "elapsed_s=${fig[elapsed_s]}"
    echo "elapsed_s=${fig[elapsed_s]}" >>"$props"
    for key in "${last_keys[@]}"; do
        line="$line${line:+ }$key=${fig[$key]:-NA}"
        echo "$key=${fig[$key]:-NA}" >>"$props"
    done
    echo "$line"
}

# ---- the figures: the median round (called by the exit trap, so a failed round still reports the others) -------

# round_value <side> <round> <key>: what the driver reported for the key in that round (NA where missing)
round_value() {
    local v
    v=$(sed -n "s/^$3=//p" "$work/$1.r$2.out" 2>/dev/null | tail -n 1)
    echo "${v:-NA}"
}

# round_values <side> <key>: the key's value in each round, one a line, in round order
round_values() {
    local r
    for ((r = 1; r <= rounds; r++)); do
        round_value "$1" "$r" "$2"
    done
}
median() { grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "NA";
    else if (NR % 2) printf "%s\n", v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
sum() { grep -E '^[0-9.]+$' | awk '{ s += $1; n++ } END { if (n) printf "%.1f\n", s; else print "NA" }'; }
max() { grep -E '^[0-9.]+$' | sort -g | tail -n 1 | grep . || echo NA; }

# div3 <cpu s> <runs>: ms of CPU per step of a three-step run
div3() {
    awk -v c="$1" -v n="$2" 'BEGIN { if (c ~ /^[0-9.]+$/ && n ~ /^[0-9]+$/ && n > 0) printf "%.2f", c * 1000 / (3 * n); else print "NA" }'
}

# round_ratios <side a> <side b>: each round's runs/s of a over b's, one a line
round_ratios() {
    local r
    for ((r = 1; r <= rounds; r++)); do
        echo "$(round_value "$1" "$r" runs_per_s) $(round_value "$2" "$r" runs_per_s)" \
            | awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ && $2 > 0 { printf "%.2f\n", $1 / $2; exit } { print "NA" }'
    done
}

aggregate() {
    local side pre cpu_pre jvm r key ratios cost
    [ ${#sides[@]} -gt 0 ] || return 0
    for side in "${sides[@]}"; do
        pre=$(head_pre "$side")
        cpu_pre=$(cpu_pre "$side")
        fig[${pre}runs_per_s]=$(round_values "$side" runs_per_s | median)
        fig[${pre}p50_ms]=$(round_values "$side" p50_ms | median)
        fig[${pre}p99_ms]=$(round_values "$side" p99_ms | median)
        fig[${pre}start_per_s]=$(round_values "$side" start_per_s | median)
        fig[${pre}rss_mb]=$(round_values "$side" rss_mb | max)
        fig[${cpu_pre}max_ms]=$(round_values "$side" max_ms | max)
        fig[${cpu_pre}runs_per_s_rounds]=$(round_values "$side" runs_per_s | paste -sd,)
        fig[${cpu_pre}p99_ms_rounds]=$(round_values "$side" p99_ms | paste -sd,) # the tail moves more than the median
        fig[${cpu_pre}completed]=$(round_values "$side" completed | sum | cut -d. -f1)
        fig[${cpu_pre}failed]=$(round_values "$side" failed | sum | cut -d. -f1)
        for key in measured_s jit_cpu_s driver_cpu_s host_busy_cpu_s host_steal_cpu_s pg_cpu_s; do
            fig[${cpu_pre}$key]=$(round_values "$side" "$key" | sum)
        done
        jvm=$(round_values "$side" jvm_cpu_s | sum)
        if [ "$side" = ref ]; then fig[ref_cpu_s]=$jvm; else fig[${cpu_pre}jvm_cpu_s]=$jvm; fi
        fig[${cpu_pre}cpu_ms_per_run]=$(awk -v j="$jvm" -v p="${fig[${cpu_pre}pg_cpu_s]}" -v n="${fig[${cpu_pre}completed]}" \
            'BEGIN { if (j ~ /^[0-9.]+$/ && p ~ /^[0-9.]+$/ && n > 0) printf "%.2f", (j + p) * 1000 / n; else print "NA" }')
    done
    if [ "$sdk" = 1 ]; then
        # per step: three steps a run; the server's (the pods') CPU, and the worker JVM's for the sdk side
        fig[server_cpu_ms_per_step]=$(div3 "${fig[sdk_jvm_cpu_s]:-NA}" "${fig[sdk_completed]:-NA}")
        fig[inproc_server_cpu_ms_per_step]=$(div3 "${fig[ductor_jvm_cpu_s]:-NA}" "${fig[ductor_completed]:-NA}")
        fig[worker_cpu_s]=$(round_values sdk worker_cpu_s | sum)
        fig[worker_cpu_ms_per_step]=$(div3 "${fig[worker_cpu_s]:-NA}" "${fig[sdk_completed]:-NA}")
        fig[sdk_vs_inproc_rounds]=$(round_ratios sdk ductor | paste -sd,)
        fig[sdk_vs_inproc]=$(round_ratios sdk ductor | median)
        fig[ratio_rounds]=$(round_ratios sdk ref | paste -sd,)
        fig[ratio]=$(round_ratios sdk ref | median)
        fig[inproc_ratio_rounds]=$(round_ratios ductor ref | paste -sd,)
        fig[inproc_ratio]=$(round_ratios ductor ref | median)
    elif [ ${#sides[@]} = 2 ]; then
        # each round's ratio, and its CPU a run over the reference's with each divided by the driver's CPU in its own
        # phase: the driver does the same work in both, so that gauges how fast the host was in each
        ratios=() cost=()
        for ((r = 1; r <= rounds; r++)); do
            ratios+=("$(echo "$(round_value ductor "$r" runs_per_s) $(round_value ref "$r" runs_per_s)" \
                | awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ && $2 > 0 { printf "%.2f", $1 / $2; exit } { print "NA" }')")
            cost+=("$(for side in ductor ref; do
                for key in jvm_cpu_s pg_cpu_s driver_cpu_s completed; do
                    printf '%s ' "$(round_value "$side" "$r" "$key")"
                done
            done | awk '{ for (i = 1; i <= 8; i++) if ($i !~ /^[0-9.]+$/ || $i == 0) { print "NA"; exit }
                printf "%.2f", (($1 + $2) / $3 / $4) / (($5 + $6) / $7 / $8) }')")
        done
        fig[ratio_rounds]=$(IFS=,; echo "${ratios[*]}")
        fig[ratio_min]=$(printf '%s\n' "${ratios[@]}" | grep -E '^[0-9.]+$' | sort -g | head -n 1 | grep . || echo NA)
        fig[ratio_max]=$(printf '%s\n' "${ratios[@]}" | max)
        fig[ratio]=$(printf '%s\n' "${ratios[@]}" | median)
        fig[cpu_ratio_by_driver_rounds]=$(IFS=,; echo "${cost[*]}")
        fig[cpu_ratio_by_driver]=$(printf '%s\n' "${cost[@]}" | median)
    fi
}

# ---- processes: everything started here is stopped by pid on exit (also on failure, Ctrl-C, SIGTERM) --------

child=""     # the foreground helper being waited for (build, a Java tool, the driver)
ref_pid=""
worker_pid="" # the SDK worker JVM (--sdk)
prof_pid=""
pod_pids=()
pod_ports=()
used_ports=()
pgdir=""
pg_pid=""
as_pg=()
work=$(mktemp -d /tmp/ductor-chain3.XXXXXX) # keys, tokens, driver outputs; root-only

stop_pods() {
    local pid
    for pid in "${pod_pids[@]}"; do # SIGTERM all at once: each drains (prod: 5 s shutdown delay), JFR dumps
        alive "$pid" && kill -TERM -- "-$pid" 2>/dev/null && kill -CONT -- "-$pid" 2>/dev/null || true
    done
    for pid in "${pod_pids[@]}"; do
        stop_pid "$pid" "Ductor pod" 60
    done
    pod_pids=()
}

# pause <side> / resume <side>: the side that is not being measured is stopped (SIGSTOP to its process groups), so
# its idle polls, timers and GC take nothing from the other's measured round; its connections simply stay open
signal_side() {
    local sig=$1 side=$2 pid
    if [ "$side" = ref ]; then
        [ -z "$ref_pid" ] || kill "-$sig" -- "-$ref_pid" 2>/dev/null || true
    else
        # the sdk side is the pods and the worker JVM; the in-process side the pods alone (the worker stays stopped)
        for pid in "${pod_pids[@]}"; do
            kill "-$sig" -- "-$pid" 2>/dev/null || true
        done
        if [ "$side" = sdk ] && [ -n "$worker_pid" ]; then
            kill "-$sig" -- "-$worker_pid" 2>/dev/null || true
        fi
    fi
}
pause() { [ ${#sides[@]} -lt 2 ] || signal_side STOP "$1"; }
resume() { signal_side CONT "$1"; }

on_exit() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    [ -n "$child" ] && stop_pid "$child" "helper" 10
    resume ref
    resume ductor
    resume sdk
    stop_pid "$prof_pid" "profiler" 5
    stop_pid "$ref_pid" "reference" 15
    stop_pid "$worker_pid" "SDK worker" 20
    stop_pods
    stop_pg
    aggregate
    rm -rf "$work"
    report
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the Ductor jar and the JDBC driver beside it ----------------------------------------------------------------

locate_jar "$out_dir/chain3-build.log" || exit 1
fig[slow_paths]=$slow_paths
# the commit the jar's repository is at (-dirty: uncommitted changes there, which the jar may or may not contain)
fig[ductor_commit]=$(git -C "$(dirname "$jar")" describe --always --dirty --abbrev=7 2>/dev/null || echo NA)

# ---- --sdk: the SDK of this repository (sdk/target, packaged when missing) and its runtime classpath ----------------

[ "$sdk" = 0 ] || sdk_classpath "$root" "$out_dir/chain3-sdk-build.log" || exit 1

# ---- PostgreSQL --------------------------------------------------------------------------------------------------

# with_db <jdbc url> <db>: the same server (and parameters), another database
with_db() {
    local base=${1%%\?*} rest
    local params=${1:${#base}}
    rest=${base#jdbc:postgresql://}
    echo "jdbc:postgresql://${rest%%/*}/$2$params"
}

if [ -n "${BENCH_JDBC_URL:-}" ]; then
    admin_url=$BENCH_JDBC_URL
    db_user=${BENCH_DB_USER:?BENCH_DB_USER is needed with BENCH_JDBC_URL}
    db_password=${BENCH_DB_PASSWORD:-}
    pg_pid=${BENCH_PG_PID:-}
    log "phase=postgres external=$admin_url"
else
    start_local_pg
fi
ductor_url=$(with_db "$admin_url" "$ductor_db")
ref_url=$(with_db "$admin_url" "$ref_db")
run_child timeout 180 "$java" -cp "$jdbc_jar" bench/chain3/PgSetup.java "$admin_url" "$db_user" "$db_password" \
    "$ductor_db" "$ref_db"

# ---- keys and tokens: a fresh RSA-2048 pair per run; Ductor and the reference verify with the public key -------

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/private.pem" 2>/dev/null
openssl pkey -in "$work/private.pem" -pubout -out "$work/public.pem" 2>/dev/null
run_child timeout 120 "$java" bench/chain3/MintTokens.java "$work/private.pem" "$work" ductor-bench bench 7200
# --sdk: a worker token of the same tenant (MintTokens mints admin and client), signed with openssl
[ "$sdk" = 0 ] || mint_worker_token "$work/private.pem" "$work/worker.jwt" bench 7200

# ---- the driver, and the profiler beside it ----------------------------------------------------------------------

# What the poller reads: which of the runs still open (started, not yet seen terminal) are terminal now, by primary
# key (updated_at as epoch µs, the same clock as the driver's: one machine). A poll so costs the same whatever the
# table holds; an earlier window over updated_at and created_at still cost 5.8 ms a poll at 10,000 runs, ten polls a
# second, taxing whichever side runs longer.
ductor_poll_sql="SELECT run_id::text, status, (extract(epoch FROM updated_at) * 1000000)::bigint
  FROM eec_workflow_run WHERE run_id = ANY(CAST(? AS uuid[])) AND status <> 'RUNNING'"
ref_poll_sql="SELECT id::text, status, (extract(epoch FROM updated_at) * 1000000)::bigint
  FROM ref_run WHERE id = ANY(CAST(? AS uuid[])) AND status <> 'RUNNING'"
workflow='{"name":"chain3","nodes":[{"id":"a","type":"task","handler":"noop"},{"id":"b","type":"task","handler":"noop","dependsOn":["a"]},{"id":"c","type":"task","handler":"noop","dependsOn":["b"]}]}'
sdk_workflow='{"name":"chain3-sdk","nodes":[{"id":"a","type":"task","handler":"ext:s1"},{"id":"b","type":"task","handler":"ext:s2","dependsOn":["a"]},{"id":"c","type":"task","handler":"ext:s3","dependsOn":["b"]}]}'

# start_profiler <side> <jdbc url>: only with BENCH_PROFILE=1; the driver brackets its measured phase via the file
start_profiler() {
    local side=$1 url=$2 suffix
    [ "$profile" = 1 ] || return 0
    suffix=$([ "$side" = ref ] && echo "-ref" || true)
    rm -f "$work/$side.phase"
    setsid "$java" -cp "$jdbc_jar" bench/chain3/PgProfile.java --jdbc-url "$url" --user "$db_user" \
        --password "$db_password" --phase-file "$work/$side.phase" --pgss-out "$out_dir/chain3${suffix}-pgss.txt" \
        --activity-out "$out_dir/chain3${suffix}-activity.txt" --interval-ms 200 \
        --timeout-s $((2 * timeout_s + 600)) >&2 &
    prof_pid=$!
}

# finish_profiler: the profiler writes its files once the driver says "done"; bounded
finish_profiler() {
    local i
    [ -n "$prof_pid" ] || return 0
    for ((i = 0; i < 300; i++)); do
        alive "$prof_pid" || break
        sleep 0.1
    done
    stop_pid "$prof_pid" "profiler" 5
    prof_pid=""
}

# drive <side> <out file> <runs> <warm-up runs> <warm-up s> [driver options...]: one driver invocation against the
# side's service(s) (ref_urls/ref_pids or ductor_urls/ductor_pids); its figures go to <out file>
drive() {
    local side=$1 out=$2 n=$3 warm=$4 warm_s=$5 sql url urls pids
    shift 5
    sql=$([ "$side" = ref ] && echo "$ref_poll_sql" || echo "$ductor_poll_sql")
    url=$([ "$side" = ref ] && echo "$ref_url" || echo "$ductor_url")
    case $side in ref) urls=$ref_urls ;; sdk) urls=$sdk_urls ;; *) urls=$ductor_urls ;; esac
    pids=$([ "$side" = ref ] && echo "$ref_pid" || echo "$ductor_pids") # the server's CPU: the pods' (not the worker's)
    run_child "$java" "${driver_jvm_opts[@]}" -cp "$jdbc_jar" bench/chain3/Driver.java --label "$side" --start-urls "$urls" \
        --client-token "$work/client.jwt" --jdbc-url "$url" --db-user "$db_user" --db-password "$db_password" \
        --poll-sql "$sql" --out "$out" --runs "$n" --warmup "$warm" --starters "$starters" \
        --timeout-s "$timeout_s" --warmup-min-s "$warm_s" --pids "$pids" --pg-pid "$pg_pid" --clk-tck "$clk_tck" "$@"
}

# checked <rc>: 3 (a start answered non-2xx: the driver printed it) aborts; any other failure marks the result
checked() {
    [ "$1" -ne 3 ] || exit 1
    [ "$1" -eq 0 ] || final_rc=1
    return 0
}

final_rc=0
ref_urls=""
ductor_urls=""
sdk_urls=""
ductor_pids=""

# ---- the reference: started and warmed up ------------------------------------------------------------------------

if has_side ref; then
    free_port
    ref_port=$REPLY
    ref_log=$out_dir/chain3-ref.log
    log "phase=ref-start port=$ref_port log=$ref_log"
    setsid "$java" "${ref_jvm_opts[@]}" -cp "$jdbc_jar" bench/chain3/RefService.java --port "$ref_port" \
        --jdbc-url "$ref_url" --user "$db_user" --password "$db_password" --public-key "$work/public.pem" \
        --issuer ductor-bench --pool 10 --workers 8 --batch 8 --idle-ms 100 >"$ref_log" 2>&1 &
    ref_pid=$!
    ref_urls="http://127.0.0.1:$ref_port/runs"
    wait_http "http://127.0.0.1:$ref_port/health" "$ref_pid" "$ref_log" "the reference" || exit 1
    rc=0
    drive ref "$work/ref.warmup.out" 0 "$warmup" "$warmup_min_s" || rc=$?
    absorb "$work/ref.warmup.out" ref
    checked "$rc"
    [ "$rc" -eq 0 ] || exit 1
    pause ref
fi

# ---- Ductor: the pod(s) started and warmed up --------------------------------------------------------------------

# start_pod <n> <migrate true|false>: one prod-mode JVM on the shared database
start_pod() {
    local n=$1 migrate=$2 port pod_log=$out_dir/chain3-pod$1.log
    local jfr=()
    free_port
    port=$REPLY
    [ "$profile" = 1 ] && jfr=("-XX:StartFlightRecording=filename=$out_dir/chain3-pod$n.jfr,settings=profile,dumponexit=true${BENCH_JFR_EXTRA:+,$BENCH_JFR_EXTRA}")
    log "phase=ductor-start pod=$n port=$port migrate=$migrate log=$pod_log"
    launch_pod "chain3-pod$n" "$ductor_url" "$port" "$migrate" "$pod_log" "${jfr[@]}"
    pod_pids+=("$REPLY")
    pod_ports+=("$port")
}

if has_side ductor || has_side sdk; then
    start_pod 1 true # the first migrates; the others start on the migrated schema, as pods do
    wait_http "http://127.0.0.1:${pod_ports[0]}/q/health/ready" "${pod_pids[0]}" "$out_dir/chain3-pod1.log" \
        "Ductor pod 1" || exit 1
    for ((n = 2; n <= pods; n++)); do
        start_pod "$n" false
    done
    for ((n = 2; n <= pods; n++)); do
        wait_http "http://127.0.0.1:${pod_ports[n - 1]}/q/health/ready" "${pod_pids[n - 1]}" \
            "$out_dir/chain3-pod$n.log" "Ductor pod $n" || exit 1
    done
    for port in "${pod_ports[@]}"; do
        ductor_urls="$ductor_urls${ductor_urls:+,}http://127.0.0.1:$port/api/v1/workflows/chain3/runs"
    done
    for port in "${pod_ports[@]}"; do
        sdk_urls="$sdk_urls${sdk_urls:+,}http://127.0.0.1:$port/api/v1/workflows/chain3-sdk/runs"
    done
    ductor_pids=$(IFS=,; echo "${pod_pids[*]}")
    if has_side ductor; then
        rc=0
        drive ductor "$work/ductor.warmup.out" 0 "$warmup" "$warmup_min_s" \
            --register-url "http://127.0.0.1:${pod_ports[0]}/api/v1/workflows/chain3" \
            --admin-token "$work/admin.jwt" --register-body "$workflow" || rc=$?
        absorb "$work/ductor.warmup.out" ductor
        checked "$rc"
        [ "$rc" -eq 0 ] || exit 1
    fi
    if has_side sdk; then
        # one worker JVM, polling the first pod (a worker deployment has its own address for the service)
        worker_log=$out_dir/chain3-sdk-worker.log
        log "phase=worker-start concurrency=$worker_concurrency log=$worker_log"
        worker_jfr=()
        [ "$profile" = 1 ] && worker_jfr=("-XX:StartFlightRecording=filename=$out_dir/chain3-sdk-worker.jfr,settings=profile,dumponexit=true")
        setsid "$java" "${worker_jvm_opts[@]}" "${worker_jfr[@]}" -cp "$SDK_CLASSPATH" bench/sdk/SdkWorker.java \
            "http://127.0.0.1:${pod_ports[0]}" "$work/worker.jwt" "$worker_concurrency" >"$worker_log" 2>&1 &
        worker_pid=$!
        for ((i = 0; i < ready_timeout * 5; i++)); do # start() returns once the server answered its first claim
            grep -q ' started: ' "$worker_log" 2>/dev/null && break
            alive "$worker_pid" || { log "SDK worker exited; the end of $worker_log:"; tail -n 40 "$worker_log" >&2; exit 1; }
            sleep 0.2
        done
        grep -q ' started: ' "$worker_log" || { log "SDK worker not started after ${ready_timeout}s"; exit 1; }
        rc=0
        drive sdk "$work/sdk.warmup.out" 0 "$warmup" "$warmup_min_s" \
            --register-url "http://127.0.0.1:${pod_ports[0]}/api/v1/workflows/chain3-sdk" \
            --admin-token "$work/admin.jwt" --register-body "$sdk_workflow" || rc=$?
        absorb "$work/sdk.warmup.out" sdk
        checked "$rc"
        [ "$rc" -eq 0 ] || exit 1
        pause sdk
    fi
    pause ductor
fi

# ---- the measured rounds: the sides alternate, each measured while the other is stopped --------------------------

# Measured one after the other, a shared host's speed drifting between two phases decided the ratio (1.7 times
# between the reference's phase and Ductor's was seen). So the sides alternate in rounds, in the order ref-Ductor,
# Ductor-ref, ref-Ductor..., every round pairing two neighbouring phases, and the figure is the median round.

for ((r = 1; r <= rounds; r++)); do
    order=("${sides[@]}")
    if ((r % 2 == 0)); then # ref, inproc(, sdk) then the reverse: every round pairs neighbouring phases
        order=()
        for ((k = ${#sides[@]} - 1; k >= 0; k--)); do
            order+=("${sides[k]}")
        done
    fi
    for side in "${order[@]}"; do
        resume "$side"
        phase_args=()
        if [ "$profile" = 1 ] && [ "$r" = 1 ]; then # the first round of each side is profiled
            start_profiler "$side" "$([ "$side" = ref ] && echo "$ref_url" || echo "$ductor_url")"
            phase_args=(--phase-file "$work/$side.phase")
        fi
        log "phase=$side-round round=$r of $rounds"
        rc=0
        [ "$side" != sdk ] || ticks0=$(proc_ticks "$worker_pid")
        drive "$side" "$work/$side.r$r.out" "$runs" 0 0 "${phase_args[@]}" || rc=$?
        if [ "$side" = sdk ]; then # the worker JVM's CPU over the driver's phase (its warm-up and drain included)
            awk -v a="$ticks0" -v b="$(proc_ticks "$worker_pid")" -v t="$clk_tck" \
                'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/) printf "worker_cpu_s=%.2f\n", (b - a) / t }' >>"$work/$side.r$r.out"
        fi
        finish_profiler
        pause "$side"
        checked "$rc"
    done
done
resume ref
resume ductor
resume sdk
log "phase=ductor-stop pods=$pods"
stop_pid "$ref_pid" "reference" 15
ref_pid=""
stop_pid "$worker_pid" "SDK worker" 20
worker_pid=""
stop_pods

exit "$final_rc"
