#!/usr/bin/env bash
# wakeup: how fast a new pod reaches its full speed (issue 33). A pod is started the way the image and
# kubernetes/deployment.yaml start it (JDK 25, the image's entrypoint flags, an AOT cache trained by
# src/main/aot/train-aot-cache.sh, the deployment's JAVA_TOOL_OPTIONS, in a CPU cgroup of the deployment's limit, with
# the JVM's view of its memory limit) on a migrated database, and from its
# first ready 200 chain3 (3 sequential noop steps) is driven at full load for WAKEUP_DURATION_S (120) seconds by
# bench/chain3/Driver.java's wake-up mode. The same for the image's entrypoint alone (C1 and C2), and for plain
# `java -jar` on JDK 17 and on JDK 25 without the cache.
# See docs/benchmarks.md, section `wakeup`. Called by bench/run.sh wakeup.
#
# One invocation: fresh PostgreSQL 15 (durability defaults) -> a setup pod migrates database wakeup_template and
# defines chain3, then stops -> the AOT cache is trained as a pod runs, on a copy of that database -> for each round
# and variant: a fresh copy of the template (CREATE DATABASE ... TEMPLATE), the driver started and waiting, the pod
# launched, measured for WAKEUP_DURATION_S from its first ready 200, stopped. Progress goes to stderr; stdout carries
# only the figures, the last line being, for the image's setup,
#   ready_cpu_ms=<a> first15_vs_steady=<b> s_to_80pct=<c> steady_runs_per_s=<d>
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
out_dir=$root/target/bench
stem=wakeup # the figures' and PostgreSQL log's file names
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # log, alive, stop_pid, stop_pg, run_child, free_port, wait_http, start_local_pg,
# locate_jar, launch_pod, train_pod_aot_cache

usage() {
    cat <<'EOF2'
usage: bench/run.sh wakeup      (or: bash bench/wakeup.sh)

variants (WAKEUP_VARIANTS, default "image image_c2 jdk17 jdk25", measured in that order in each round):
  image     a pod of kubernetes/deployment.yaml: JDK 25, -XX:AOTCache=<cache trained here>, the image's entrypoint
            flags (quarkus.jib.jvm-additional-arguments: -XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError) and
            the deployment's JAVA_TOOL_OPTIONS (read from the manifest), plus WAKEUP_IMAGE_OPTS
  image_c2  the same without the deployment's JAVA_TOOL_OPTIONS: the image's entrypoint alone, C1 and C2
  jdk17     plain java -jar on JDK 17 with the pod's heap flags, no cache
  jdk25     plain java -jar on JDK 25 with the pod's heap flags, no cache
Every pod runs in a cgroup (v1 or v2 cpu controller) with kubernetes/deployment.yaml's CPU limit, which its JVM sees
as its processor count, and with -XX:MaxRAM=768m, the JVM's view of the 768Mi memory limit (its heap: 75 % of it).
Without a writable cgroup the limit is emulated with -XX:ActiveProcessorCount only (cpu_limit=jvm-flag).

figures per variant: ready_ms (launch to first ready 200), ready_cpu_ms (the JVM's utime+stime at that 200),
runs_per_s_windows (completed runs/s in WAKEUP_WINDOW_S windows from ready), cpu_pct_windows and
jit_cpu_pct_windows (the pod's CPU and its JIT compiler threads', % of one core), first15_vs_steady (runs/s over the
first 15 s after ready / mean runs/s over the last 30 s), s_to_80pct (the first second at which the trailing 5 s
rate reaches 80 % of that mean), steady_runs_per_s, first15_cpu_ms_per_run and steady_cpu_ms_per_run (the pod's
CPU a completed run over the same spans: a busy host moves them less than the rates); with WAKEUP_ROUNDS > 1 the
medians and each round's value. JAVA_TOOL_OPTIONS of the caller's environment is ignored.

environment (all optional):
  WAKEUP_DURATION_S    load after ready, per pod (default 120)
  WAKEUP_WINDOW_S      window of the runs/s series (default 5)
  WAKEUP_ROUNDS        rounds over the variants (default 1; a round of the 4 variants about 10 minutes, 12 in all)
  WAKEUP_VARIANTS      which variants, in order (default "image image_c2 jdk17 jdk25")
  WAKEUP_POD_CPUS      the pod's CPU limit in cores (default 1, kubernetes/deployment.yaml)
  WAKEUP_POD_OPTS      JVM options of every pod (default "-XX:MaxRAM=768m -XX:MaxRAMPercentage=75
                       -XX:+ExitOnOutOfMemoryError")
  WAKEUP_IMAGE_OPTS    extra JVM options of the image variant only, e.g. compiler settings under trial
  WAKEUP_AOT           use this AOT cache instead of training one (it must match JDK 25 and the jar path)
  JAVA17, JAVA25       the JVMs (default: java on PATH; /usr/lib/jvm/temurin-25*/bin/java)
  DUCTOR_JAR, BENCH_SKIP_BUILD, BENCH_STARTERS (default 4), BENCH_PG_BIN, BENCH_PG_OS_USER, BENCH_READY_TIMEOUT_S
                       as for chain3

output: the figures on stdout and in target/bench/wakeup.properties; logs in target/bench/: wakeup-<variant>-r<n>.log
(the pod), wakeup-driver-<variant>-r<n>.log, wakeup-train.log, wakeup-setup.log, wakeup-postgres.log.
exit status: 0 every pod ran its load with no failed run, 1 otherwise, 2 usage.
EOF2
}

case ${1:-} in
    '') ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
esac

duration=${WAKEUP_DURATION_S:-120}
window=${WAKEUP_WINDOW_S:-5}
rounds=${WAKEUP_ROUNDS:-1}
read -r -a variants <<<"${WAKEUP_VARIANTS:-image image_c2 jdk17 jdk25}"
unset JAVA_TOOL_OPTIONS # only the image variant gets one: the deployment's
# the value kubernetes/deployment.yaml gives JAVA_TOOL_OPTIONS (the line after its "- name: JAVA_TOOL_OPTIONS")
manifest_tool_opts=$(awk '/- name: JAVA_TOOL_OPTIONS/ { getline; sub(/^[^:]*value: */, ""); gsub(/"/, ""); print; exit }' \
    kubernetes/deployment.yaml)
pod_cpus=${WAKEUP_POD_CPUS:-1}
read -r -a pod_opts <<<"${WAKEUP_POD_OPTS:--XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError}"
read -r -a image_opts <<<"${WAKEUP_IMAGE_OPTS:-}"
starters=${BENCH_STARTERS:-4}
ready_timeout=${BENCH_READY_TIMEOUT_S:-120}
java17=${JAVA17:-$(command -v java)}
java25=${JAVA25:-$(ls -d /usr/lib/jvm/temurin-25*/bin/java 2>/dev/null | sort -V | tail -n 1)}
java=$java17 # the tools and the driver
pg_bin=${BENCH_PG_BIN:-/usr/lib/postgresql/15/bin}
pg_os_user=${BENCH_PG_OS_USER:-ductorbench}
driver_jvm_opts=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC) # as chain3's driver: C1 code, little CPU a start
for n in "$duration" "$window" "$rounds" "$pod_cpus" "$starters" "$ready_timeout"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "WAKEUP_DURATION_S, WAKEUP_WINDOW_S, WAKEUP_ROUNDS, WAKEUP_POD_CPUS," \
        "BENCH_STARTERS and BENCH_READY_TIMEOUT_S must be whole numbers > 0" >&2; exit 2; }
done
[ "$duration" -ge 30 ] && [ $((duration % window)) = 0 ] \
    || { echo "WAKEUP_DURATION_S must be >= 30 and a multiple of WAKEUP_WINDOW_S" >&2; exit 2; }
for v in "${variants[@]}"; do
    case $v in image | image_c2 | jdk17 | jdk25) ;; *) echo "unknown variant $v (image, image_c2, jdk17, jdk25)" >&2; exit 2 ;; esac
done
[ -x "$java25" ] || { echo "no JDK 25 found (set JAVA25)" >&2; exit 2; }

mkdir -p "$out_dir"
rm -f "$out_dir"/wakeup.properties "$out_dir"/wakeup-*.log
started=$SECONDS
clk_tck=$(getconf CLK_TCK)
loadavg() { cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/'; }

declare -A fig=()
last_keys=(ready_cpu_ms first15_vs_steady s_to_80pct steady_runs_per_s)
fig[duration_s]=$duration
fig[rounds]=$rounds
fig[pod_cpus]=$pod_cpus
fig[pod_opts]="${pod_opts[*]}"
fig[image_opts]="${image_opts[*]}"
fig[image_java_tool_options]=$manifest_tool_opts
fig[load_avg_start]=$(loadavg)

report() {
    local key line="" props=$out_dir/wakeup.properties
    fig[load_avg_end]=$(loadavg)
    fig[elapsed_s]=$((SECONDS - started))
    : >"$props"
    for key in $(printf '%s\n' "${!fig[@]}" | sort); do
        echo "$key=${fig[$key]}"
        echo "$key=${fig[$key]}" >>"$props"
    done
    for key in "${last_keys[@]}"; do
        line="$line${line:+ }$key=${fig[image_$key]:-NA}"
    done
    echo "$line" | tee -a "$props"
}

# ---- processes: everything started here is stopped by pid on exit (also on failure, Ctrl-C, SIGTERM) --------

child=""
pod_pid=""
driver_pid=""
used_ports=()
pgdir=""
pg_pid=""
as_pg=()
cgroup=""
work=$(mktemp -d /tmp/ductor-wakeup.XXXXXX)

on_exit() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    [ -n "$child" ] && stop_pid "$child" "helper" 10
    stop_pid "$driver_pid" "driver" 10
    stop_pid "$pod_pid" "Ductor pod" 60
    if [ -n "$cgroup" ]; then # empty once the JVMs in it are gone, which can take a moment after a kill
        for ((i = 0; i < 50; i++)); do
            rmdir "$cgroup" 2>/dev/null && break
            sleep 0.2
        done
    fi
    stop_pg
    rm -rf "$work"
    report
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the pod's CPU limit: a cgroup with limits.cpu cores (the JVM reads its quota, as in a container) ------------

for base in /sys/fs/cgroup/cpu /sys/fs/cgroup; do
    if [ -f "$base/cpu.cfs_quota_us" ] || [ -f "$base/cpu.max" ]; then
        if mkdir "$base/ductor-wakeup-$$" 2>/dev/null; then
            cgroup=$base/ductor-wakeup-$$
            if [ -f "$cgroup/cpu.cfs_quota_us" ]; then
                echo 100000 >"$cgroup/cpu.cfs_period_us" && echo $((pod_cpus * 100000)) >"$cgroup/cpu.cfs_quota_us"
            else
                echo "$((pod_cpus * 100000)) 100000" >"$cgroup/cpu.max"
            fi || { rmdir "$cgroup"; cgroup=""; }
            [ -z "$cgroup" ] || break
        fi
    fi
done
if [ -n "$cgroup" ]; then
    fig[cpu_limit]="cgroup:$pod_cpus"
else
    fig[cpu_limit]="jvm-flag:$pod_cpus"
    pod_opts+=(-XX:ActiveProcessorCount="$pod_cpus")
    log "no writable cpu cgroup: the pods see $pod_cpus CPU(s) (-XX:ActiveProcessorCount) but are not held to it"
fi

# pod_java <java>: a launcher that enters the pod's cgroup, then runs that java (same pid: exec), in $REPLY
pod_java() {
    local real=$1 wrapper
    wrapper=$work/java-$(echo "$1" | md5sum | cut -c1-8)
    {
        echo '#!/usr/bin/env bash'
        [ -z "$cgroup" ] || echo "echo \$\$ >'$cgroup/cgroup.procs'"
        echo "exec '$real' \"\$@\""
    } >"$wrapper"
    chmod 755 "$wrapper"
    REPLY=$wrapper
}

# ---- the app: a copy of the packaged one, so the AOT cache's class path stays valid while target/ is rebuilt ------

locate_jar || exit 1 # bench/lib.sh: the jar (built when missing) and its PostgreSQL driver
fig[ductor_commit]=$(git -C "$(dirname "$jar")" describe --always --dirty --abbrev=7 2>/dev/null || echo NA)
app=$out_dir/wakeup-app
rm -rf "$app"
cp -a "$(dirname "$jar")" "$app" # -a: the mtimes an AOT cache (WAKEUP_AOT) checks
jar=$app/quarkus-run.jar
jdbc_jar=$(ls "$app"/lib/main/org.postgresql.postgresql-*.jar | sort -V | tail -n 1)

# ---- PostgreSQL, keys, tokens and the template database (migrated, chain3 defined) -------------------------------

start_local_pg || exit 1
db_base=jdbc:postgresql://127.0.0.1:$pg_port
psql=$pg_bin/psql
[ -x "$psql" ] || psql=psql
sql() { PGOPTIONS="-c client_min_messages=warning" PGPASSWORD=$db_password "$psql" -h 127.0.0.1 -p "$pg_port" -U "$db_user" -d postgres -v ON_ERROR_STOP=1 -qAt -c "$1"; }
run_child timeout 180 "$java" -cp "$jdbc_jar" bench/chain3/PgSetup.java "$db_base/postgres" "$db_user" "$db_password" \
    wakeup_template wakeup_template

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/private.pem" 2>/dev/null
openssl pkey -in "$work/private.pem" -pubout -out "$work/public.pem" 2>/dev/null
run_child timeout 120 "$java" bench/chain3/MintTokens.java "$work/private.pem" "$work" ductor-bench bench 7200

free_port
port=$REPLY
log "phase=setup port=$port log=$out_dir/wakeup-setup.log"
launch_pod wakeup-setup "$db_base/wakeup_template" "$port" true "$out_dir/wakeup-setup.log" "${pod_opts[@]}"
pod_pid=$REPLY
wait_http "http://127.0.0.1:$port/q/health/ready" "$pod_pid" "$out_dir/wakeup-setup.log" "the setup pod" || exit 1
workflow='{"name":"chain3","nodes":[{"id":"a","type":"task","handler":"noop"},{"id":"b","type":"task","handler":"noop","dependsOn":["a"]},{"id":"c","type":"task","handler":"noop","dependsOn":["b"]}]}'
curl -sf -X PUT "http://127.0.0.1:$port/api/v1/workflows/chain3" -H "Authorization: Bearer $(cat "$work/admin.jwt")" \
    -H 'Content-Type: application/json' -d "$workflow" >/dev/null || { log "could not define chain3"; exit 1; }
stop_pid "$pod_pid" "the setup pod" 60
pod_pid=""

# fresh_db <name>: a copy of the template (retried while the last pod's sessions go away)
fresh_db() {
    local i
    sql "DROP DATABASE IF EXISTS $1" >/dev/null
    for ((i = 0; i < 50; i++)); do
        sql "CREATE DATABASE $1 TEMPLATE wakeup_template" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    sql "CREATE DATABASE $1 TEMPLATE wakeup_template" >/dev/null
}

# ---- the AOT cache: trained as a pod runs (its flags and CPU limit) on a copy of the template --------------------

aot=${WAKEUP_AOT:-}
if [[ " ${variants[*]} " == *" image"* ]] && [ -z "$aot" ]; then
    aot=$out_dir/wakeup.aot
    fresh_db wakeup_train
    free_port
    pod_java "$java25"
    log "phase=train log=$out_dir/wakeup-train.log"
    train_pod_aot_cache "$REPLY" "$app" "$aot" "$db_base/wakeup_train" "$port" "$out_dir/wakeup-train.log" \
        "${pod_opts[@]}" >"$work/train.out" || { cat "$work/train.out" >&2; log "training failed"; exit 1; }
    for kv in $(cat "$work/train.out"); do # train_runs_succeeded=<n>/<m> aot_cache_mb=<size>
        fig[${kv%%=*}]=${kv#*=}
    done
    sql "DROP DATABASE wakeup_train" >/dev/null || true
fi
fig[aot_cache]=${aot:-none}

# ---- the measured pods --------------------------------------------------------------------------------------------

poll_sql="SELECT run_id::text, status, (extract(epoch FROM updated_at) * 1000000)::bigint
  FROM eec_workflow_run WHERE run_id = ANY(CAST(? AS uuid[])) AND status <> 'RUNNING'"
declare -A series=() # variant:key -> one value a round, space-separated
final_rc=0

# measure <variant> <round>
measure() {
    local v=$1 r=$2 real opts=("${pod_opts[@]}") db=wakeup_$1_r$2 t0 i rc=0 key value tool_opts=""
    case $v in
        image) real=$java25; opts+=(-XX:AOTCache="$aot" "${image_opts[@]}"); tool_opts=$manifest_tool_opts ;;
        image_c2) real=$java25; opts+=(-XX:AOTCache="$aot" "${image_opts[@]}") ;;
        jdk25) real=$java25 ;;
        jdk17) real=$java17 ;;
    esac
    fresh_db "$db"
    free_port
    port=$REPLY
    rm -f "$work/pod" "$work/pod.wait" "$work/$v.out"
    fig[${v}_r${r}_load_avg]=$(loadavg)
    log "phase=$v round=$r port=$port load=$(loadavg) log=$out_dir/wakeup-$v-r$r.log"
    setsid "$java" "${driver_jvm_opts[@]}" -cp "$jdbc_jar" bench/chain3/Driver.java --label "$v" \
        --start-urls "http://127.0.0.1:$port/api/v1/workflows/chain3/runs" --client-token "$work/client.jwt" \
        --jdbc-url "$db_base/$db" --db-user "$db_user" --db-password "$db_password" --poll-sql "$poll_sql" \
        --out "$work/$v.out" --starters "$starters" --duration-s "$duration" --window-s "$window" \
        --ready-url "http://127.0.0.1:$port/q/health/ready" --pod-file "$work/pod" --ready-timeout-s "$ready_timeout" \
        --timeout-s $((duration + 300)) --clk-tck "$clk_tck" 2>"$out_dir/wakeup-driver-$v-r$r.log" &
    driver_pid=$!
    for ((i = 0; i < 600; i++)); do # the driver is compiled, connected and waiting: it costs the pod nothing more
        [ -f "$work/pod.wait" ] && break
        alive "$driver_pid" || { log "the driver exited; see $out_dir/wakeup-driver-$v-r$r.log"; exit 1; }
        sleep 0.1
    done
    pod_java "$real"
    t0=$(date +%s%N)
    java=$REPLY JAVA_TOOL_OPTIONS=$tool_opts launch_pod "wakeup-$v" "$db_base/$db" "$port" false "$out_dir/wakeup-$v-r$r.log" "${opts[@]}"
    pod_pid=$REPLY
    echo "$pod_pid $t0" >"$work/pod.tmp"
    mv "$work/pod.tmp" "$work/pod"
    wait "$driver_pid" || rc=$?
    driver_pid=""
    stop_pid "$pod_pid" "Ductor pod" 60
    pod_pid=""
    sql "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
    [[ $v != image* ]] || fig[${v}_aot_warnings]=$(grep -c '\[warning\]\[aot' "$out_dir/wakeup-$v-r$r.log" || true)
    [ -s "$work/$v.out" ] || { log "the driver wrote no figures; see $out_dir/wakeup-driver-$v-r$r.log"; exit 1; }
    while IFS='=' read -r key value; do
        [ -n "$key" ] || continue
        series[$v:$key]="${series[$v:$key]:-}${series[$v:$key]:+ }$value"
    done <"$work/$v.out"
    [ "$rc" = 0 ] || { log "the $v pod's load failed (rc $rc); see $out_dir/wakeup-driver-$v-r$r.log"; final_rc=1; }
    log "phase=$v round=$r $(tr '\n' ' ' <"$work/$v.out")"
}

median() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "NA";
    else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for ((r = 1; r <= rounds; r++)); do
    for v in "${variants[@]}"; do
        measure "$v" "$r"
    done
done
for key in "${!series[@]}"; do
    v=${key%%:*}
    k=${key#*:}
    case $k in
        *_windows) # one series a round
            fig[${v}_$k]=${series[$key]// / | } ;;
        *)
            fig[${v}_$k]=$(median <<<"${series[$key]}")
            [ "$rounds" = 1 ] || fig[${v}_${k}_rounds]=${series[$key]// /,} ;;
    esac
done
exit "$final_rc"
