#!/usr/bin/env bash
# chain3-sdk: what external workers built on the Java SDK (bench/sdk/SdkWorker.java, DuctorWorker over HTTP) achieve
# against the server's in-process workers, on the same workload as chain3 (three sequential noop tasks), the same
# jar, settings, PostgreSQL and load driver (bench/chain3/Driver.java), in one invocation, so the ratio holds even
# on a noisy machine. See docs/benchmarks.md, section `chain3-sdk`. Called by bench/run.sh chain3-sdk.
#
# One invocation: fresh PostgreSQL 15 -> pod on database "inproc", workflow chain3 (3 x noop), warm-up + measured N
# -> stop it -> pod on database "sdk" + one SDK worker JVM (concurrency 8), workflow chain3-sdk (3 x ext:noop),
# warm-up + measured N -> stop everything. Each phase gets its own database (and tenant), so the second does not
# run on the first one's rows, dead tuples and autovacuum. Progress goes to stderr; stdout carries only the
# figures, one key=value per line, the last line being
#   sdk_runs_per_s=<n> inproc_runs_per_s=<m> ratio=<n/m> sdk_p50_ms=<a> sdk_p99_ms=<b> worker_cpu_ms_per_run=<c>
#
# Copied from bench/chain3.sh rather than shared with it (it is edited independently): the PostgreSQL start, the
# process handling and the Ductor pod's settings. Keep those in step with it when they change there.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
out_dir=$root/target/bench

usage() {
    cat <<'EOF'
usage: bench/run.sh chain3-sdk      (or: bash bench/chain3-sdk.sh)

Starts a throw-away PostgreSQL 15 (durability defaults), then measures with bench/chain3/Driver.java (4 starter
threads, idempotency keys, completion read from eec_workflow_run):
  1. in-process: one Ductor pod (packaged jar, prod mode, DUCTOR_WORKER_THREADS=8) runs workflow chain3 (a -> b -> c,
     three noop tasks) on database "inproc", tenant bench;
  2. SDK: a fresh pod, same settings, on database "sdk", tenant bench-sdk, runs workflow chain3-sdk (three ext:noop
     tasks), executed by one worker JVM using the SDK's DuctorWorker (bench/sdk/SdkWorker.java, concurrency 8,
     a worker token of tenant bench-sdk).

environment (all optional):
  DUCTOR_JAR           the Ductor jar (default target/quarkus-app/quarkus-run.jar, built when missing)
  BENCH_SKIP_BUILD=1   never build the server jar or the SDK; fail when one is missing
  BENCH_RUNS           measured runs per phase (default 3000)
  BENCH_WARMUP         warm-up runs per phase, not counted (default 1000)
  BENCH_TIMEOUT_S      bound of each warm-up and measured batch (default 600)
  BENCH_STARTERS       starter threads of the driver (default 4)
  BENCH_WORKER_CONCURRENCY  the SDK worker's concurrency (default 8: the in-process workers' thread count)
  BENCH_JVM_OPTS       JVM options of the Ductor pods (default "-XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+UseSerialGC", as chain3)
  BENCH_WORKER_JVM_OPTS  JVM options of the SDK worker (default: the pods'; a worker pod gets the same JVM)
  BENCH_DRIVER_JVM_OPTS  JVM options of the driver (default "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC", as chain3)
  BENCH_READY_TIMEOUT_S  how long a pod may take to answer ready (default 120)
  SDK_CLASSPATH        the SDK jar and its runtime dependencies (default: from ~/.m2, via ./mvnw -f sdk/pom.xml
                       dependency:build-classpath; the SDK is installed there when missing)
  JAVA, BENCH_PG_BIN, BENCH_PG_OS_USER   as for chain3

output: the figures on stdout and in target/bench/chain3-sdk.properties; logs in target/bench/: chain3-sdk-pod1.log
(in-process), chain3-sdk-pod2.log (SDK phase), chain3-sdk-worker.log, chain3-sdk-postgres.log, chain3-sdk-build.log.
exit status: 0 all measured runs SUCCEEDED in time, 1 otherwise (timeout, a failed run, a pod not ready), 2 usage.
EOF
}

case ${1:-} in
    '') ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
esac

runs=${BENCH_RUNS:-3000}
warmup=${BENCH_WARMUP:-1000}
timeout_s=${BENCH_TIMEOUT_S:-600}
starters=${BENCH_STARTERS:-4}
concurrency=${BENCH_WORKER_CONCURRENCY:-8}
ready_timeout=${BENCH_READY_TIMEOUT_S:-120}
java=${JAVA:-java}
pg_bin=${BENCH_PG_BIN:-/usr/lib/postgresql/15/bin}
pg_os_user=${BENCH_PG_OS_USER:-ductorbench}
read -r -a jvm_opts <<<"${BENCH_JVM_OPTS--XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+UseSerialGC}"
read -r -a worker_jvm_opts <<<"${BENCH_WORKER_JVM_OPTS-${jvm_opts[*]}}"
read -r -a driver_jvm_opts <<<"${BENCH_DRIVER_JVM_OPTS--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"
for n in "$runs" "$warmup" "$timeout_s" "$starters" "$concurrency" "$ready_timeout"; do
    [[ $n =~ ^[0-9]+$ ]] || { echo "BENCH_RUNS, BENCH_WARMUP, BENCH_TIMEOUT_S, BENCH_STARTERS," \
        "BENCH_WORKER_CONCURRENCY and BENCH_READY_TIMEOUT_S must be whole numbers" >&2; exit 2; }
done
[ "$runs" -gt 0 ] && [ "$starters" -gt 0 ] && [ "$concurrency" -gt 0 ] \
    || { echo "BENCH_RUNS, BENCH_STARTERS and BENCH_WORKER_CONCURRENCY must be > 0" >&2; exit 2; }

mkdir -p "$out_dir"
# what an earlier invocation left would read as this one's
rm -f "$out_dir"/chain3-sdk.properties "$out_dir"/chain3-sdk-pod*.log "$out_dir"/chain3-sdk-worker.log \
    "$out_dir"/chain3-sdk-postgres.log
started=$SECONDS
clk_tck=$(getconf CLK_TCK)
log() { echo "$*" >&2; }

# ---- figures: filled as the phases end, printed (and written) by the exit trap, whatever happened -------------

declare -A fig=()
last_keys=(sdk_runs_per_s inproc_runs_per_s ratio sdk_p50_ms sdk_p99_ms worker_cpu_ms_per_run)
extra_keys=(runs warmup worker_concurrency inproc_p50_ms inproc_p99_ms inproc_max_ms sdk_max_ms
    inproc_start_per_s sdk_start_per_s inproc_completed inproc_failed sdk_completed sdk_failed
    inproc_measured_s sdk_measured_s inproc_server_cpu_s sdk_server_cpu_s worker_cpu_s inproc_pg_cpu_s sdk_pg_cpu_s
    inproc_server_cpu_ms_per_run sdk_server_cpu_ms_per_run inproc_pg_cpu_ms_per_run sdk_pg_cpu_ms_per_run
    inproc_total_cpu_ms_per_run sdk_total_cpu_ms_per_run inproc_rss_mb sdk_rss_mb worker_rss_mb worker_tasks_completed worker_tasks_failed
    inproc_host_busy_cpu_s sdk_host_busy_cpu_s inproc_host_steal_cpu_s sdk_host_steal_cpu_s ductor_commit)
fig[runs]=$runs
fig[warmup]=$warmup
fig[worker_concurrency]=$concurrency

# absorb <driver out file> <inproc|sdk>: the driver's generic keys, prefixed with the phase they measured
# (jvm_cpu_s is the Ductor pod's, the only pid the driver is given: the server side of the phase)
absorb() {
    local file=$1 side=$2 key value
    [ -s "$file" ] || return 0
    while IFS='=' read -r key value; do
        case $key in
            '' | runs | cpu_ms_per_run) continue ;; # cpu_ms_per_run (pod + PostgreSQL) is split below
            jvm_cpu_s) fig[${side}_server_cpu_s]=$value ;;
            *) fig[${side}_$key]=$value ;;
        esac
    done <"$file"
}

# div <a> <b> <scale> <decimals>: a * scale / b, NA unless both are numbers and b > 0
div() {
    if [[ ${1:-NA} =~ ^[0-9.]+$ && ${2:-NA} =~ ^[0-9.]+$ ]]; then
        awk -v a="$1" -v b="$2" -v s="$3" -v d="$4" 'BEGIN { if (b > 0) printf "%.*f", d, a * s / b; else print "NA" }'
    else
        echo NA
    fi
}

report() {
    local key line="" side
    fig[ratio]=$(div "${fig[sdk_runs_per_s]:-NA}" "${fig[inproc_runs_per_s]:-NA}" 1 2)
    # CPU per measured run: the pod, PostgreSQL, the SDK worker (figures the driver measured over the same phase)
    for side in inproc sdk; do
        fig[${side}_server_cpu_ms_per_run]=$(div "${fig[${side}_server_cpu_s]:-NA}" "${fig[${side}_completed]:-NA}" 1000 2)
        fig[${side}_pg_cpu_ms_per_run]=$(div "${fig[${side}_pg_cpu_s]:-NA}" "${fig[${side}_completed]:-NA}" 1000 2)
    done
    fig[worker_cpu_ms_per_run]=$(div "${fig[worker_cpu_s]:-NA}" "${fig[sdk_completed]:-NA}" 1000 2)
    fig[inproc_total_cpu_ms_per_run]=$(div "$(awk -v a="${fig[inproc_server_cpu_s]:-x}" -v b="${fig[inproc_pg_cpu_s]:-x}" \
        'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/) print a + b; else print "NA" }')" "${fig[inproc_completed]:-NA}" 1000 2)
    fig[sdk_total_cpu_ms_per_run]=$(div "$(awk -v a="${fig[sdk_server_cpu_s]:-x}" -v b="${fig[sdk_pg_cpu_s]:-x}" \
        -v c="${fig[worker_cpu_s]:-x}" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && c ~ /^[0-9.]+$/) print a + b + c;
        else print "NA" }')" "${fig[sdk_completed]:-NA}" 1000 2)
    fig[elapsed_s]=$((SECONDS - started))
    local props=$out_dir/chain3-sdk.properties
    : >"$props"
    for key in "${extra_keys[@]}"; do
        [ -n "${fig[$key]:-}" ] || continue
        echo "$key=${fig[$key]}"
        echo "$key=${fig[$key]}" >>"$props"
    done
    for key in $(printf '%s\n' "${!fig[@]}" | sort); do # whatever else the driver reported
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

# ---- processes: everything started here is stopped by pid on exit (also on failure, Ctrl-C, SIGTERM) --------

child=""      # the foreground helper being waited for (build, a Java tool, the driver)
pod_pid=""
worker_pid=""
watch_pid=""  # the CPU sampler of the SDK phase
used_ports=()
pgdir=""
pg_pid=""
as_pg=()
work=$(mktemp -d /tmp/ductor-chain3-sdk.XXXXXX) # keys, tokens, driver outputs; root-only

alive() { # running and not a zombie (a zombie still answers kill -0)
    local st
    st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    [[ $st != Z* ]]
}

# stop_pid <pid> <name> <grace s>: SIGTERM to its process group (each child is started with setsid), wait, SIGKILL
stop_pid() {
    local pid=$1 name=$2 grace=$3 i
    [ -n "$pid" ] || return 0
    if alive "$pid"; then
        kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < grace * 10; i++)); do
            alive "$pid" || break
            sleep 0.1
        done
        if alive "$pid"; then
            log "$name (pid $pid) did not stop within ${grace}s: SIGKILL"
            kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    wait "$pid" 2>/dev/null || true
}

stop_pg() {
    [ -n "$pgdir" ] || return 0
    if [ -n "$pg_pid" ] && alive "$pg_pid"; then
        "${as_pg[@]}" timeout 60 "$pg_bin/pg_ctl" -D "$pgdir/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
        if alive "$pg_pid"; then
            log "PostgreSQL (pid $pg_pid) did not stop: SIGKILL"
            pkill -KILL -P "$pg_pid" 2>/dev/null || true
            kill -KILL "$pg_pid" 2>/dev/null || true
        fi
    fi
    [ -f "$pgdir/postgres.log" ] && cp "$pgdir/postgres.log" "$out_dir/chain3-sdk-postgres.log"
    rm -rf "$pgdir"
    pgdir=""
}

on_exit() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    [ -n "$child" ] && stop_pid "$child" "helper" 10
    [ -n "$watch_pid" ] && { kill "$watch_pid" 2>/dev/null; wait "$watch_pid" 2>/dev/null; }
    stop_pid "$worker_pid" "SDK worker" 20
    stop_pid "$pod_pid" "Ductor pod" 60
    stop_pg
    rm -rf "$work"
    report
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run_child <command...>: runs it in its own process group and waits; interruptible (the trap stops it)
run_child() {
    local rc=0
    setsid "$@" &
    child=$!
    wait "$child" || rc=$?
    child=""
    return "$rc"
}

# free_port: a TCP port nothing on this host uses and this script has not handed out yet, in $REPLY
free_port() {
    local p i
    for ((i = 0; i < 500; i++)); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        case " ${used_ports[*]} " in *" $p "*) continue ;; esac
        if ! ss -Htan "( sport = :$p )" 2>/dev/null | grep -q .; then
            used_ports+=("$p")
            REPLY=$p
            return 0
        fi
    done
    log "no free port found"
    return 1
}

# wait_http <url> <pid> <log> <name>: until the URL answers 200, bounded; the log's tail when it never does
wait_http() {
    local url=$1 pid=$2 file=$3 name=$4 t0=$SECONDS code
    while :; do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" || true)
        [ "$code" = 200 ] && return 0
        if ! alive "$pid"; then
            log "$name exited before it was ready; the end of $file:"
            tail -n 40 "$file" >&2
            return 1
        fi
        if ((SECONDS - t0 > ready_timeout)); then
            log "$name not ready after ${ready_timeout}s (last answer: $code); the end of $file:"
            tail -n 40 "$file" >&2
            return 1
        fi
        sleep 0.2
    done
}

# ---- the Ductor jar and the JDBC driver beside it ----------------------------------------------------------------

jar=${DUCTOR_JAR:-$root/target/quarkus-app/quarkus-run.jar}
if [ ! -f "$jar" ]; then
    if [ -n "${DUCTOR_JAR:-}" ] || [ "${BENCH_SKIP_BUILD:-0}" = 1 ]; then
        log "no Ductor jar at $jar (DUCTOR_JAR; BENCH_SKIP_BUILD=${BENCH_SKIP_BUILD:-0})"
        exit 1
    fi
    log "phase=build log=$out_dir/chain3-sdk-build.log"
    run_child bash -c 'cd "$1" && ./mvnw -B -q package -DskipTests' build "$root" >"$out_dir/chain3-sdk-build.log" 2>&1 \
        || { log "build failed; the end of $out_dir/chain3-sdk-build.log:"; tail -n 40 "$out_dir/chain3-sdk-build.log" >&2; exit 1; }
fi
jar=$(cd "$(dirname "$jar")" && pwd)/$(basename "$jar")
jdbc_jar=$(ls "$(dirname "$jar")"/lib/main/org.postgresql.postgresql-*.jar 2>/dev/null | sort -V | tail -n 1 || true)
[ -n "$jdbc_jar" ] || { log "no org.postgresql.postgresql-*.jar in $(dirname "$jar")/lib/main"; exit 1; }
fig[ductor_commit]=$(git -C "$(dirname "$jar")" describe --always --dirty --abbrev=7 2>/dev/null || echo NA)

# ---- the SDK and its runtime classpath, from the local Maven repository (what a worker project would get) --------

if [ -z "${SDK_CLASSPATH:-}" ]; then
    sdk_version=$(sed -n '/<artifactId>ductor-sdk<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p;q}' sdk/pom.xml)
    sdk_jar=$HOME/.m2/repository/dev/ductor/ductor-sdk/$sdk_version/ductor-sdk-$sdk_version.jar
    if [ ! -f "$sdk_jar" ]; then # ./mvnw verify installs it; without that, install just the SDK (no tests)
        [ "${BENCH_SKIP_BUILD:-0}" != 1 ] || { log "no SDK jar at $sdk_jar (BENCH_SKIP_BUILD=1)"; exit 1; }
        log "phase=sdk-build log=$out_dir/chain3-sdk-build.log"
        run_child bash -c 'cd "$1" && ./mvnw -B -q -f sdk/pom.xml install -DskipTests' build "$root" \
            >>"$out_dir/chain3-sdk-build.log" 2>&1 \
            || { log "SDK build failed; see $out_dir/chain3-sdk-build.log"; tail -n 40 "$out_dir/chain3-sdk-build.log" >&2; exit 1; }
    fi
    # compile + runtime scope: Jackson, SLF4J's API (no binding: the SDK's own logging is silenced) and Micrometer
    run_child bash -c 'cd "$1" && ./mvnw -B -q -f sdk/pom.xml dependency:build-classpath -DincludeScope=runtime \
        -Dmdep.outputFile="$2"' classpath "$root" "$work/sdk.classpath" >>"$out_dir/chain3-sdk-build.log" 2>&1 \
        || { log "could not resolve the SDK's classpath; see $out_dir/chain3-sdk-build.log"; exit 1; }
    SDK_CLASSPATH=$sdk_jar:$(cat "$work/sdk.classpath")
fi

# ---- PostgreSQL (as bench/chain3.sh starts it) -------------------------------------------------------------------

if [ ! -x "$pg_bin/initdb" ] || [ ! -x "$pg_bin/postgres" ]; then
    log "phase=postgres installing postgresql-15 (no server binaries in $pg_bin)"
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get update >&2
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y postgresql-15 >&2
fi
if [ "$(id -u)" = 0 ]; then # PostgreSQL refuses to run as root
    if ! id -u "$pg_os_user" >/dev/null 2>&1; then
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$pg_os_user"
    fi
    as_pg=(runuser -u "$pg_os_user" --)
fi
pgdir=$(mktemp -d /tmp/ductor-chain3-sdk-pg.XXXXXX)
db_user=postgres
db_password=$(openssl rand -hex 16)
printf '%s\n' "$db_password" >"$pgdir/pwfile"
[ "$(id -u)" != 0 ] || chown -R "$pg_os_user" "$pgdir"
if ! "${as_pg[@]}" timeout 120 "$pg_bin/initdb" -D "$pgdir/data" -U postgres --auth=scram-sha-256 \
        --pwfile="$pgdir/pwfile" -E UTF8 --no-locale >"$pgdir/initdb.log" 2>&1; then
    log "initdb failed:"
    cat "$pgdir/initdb.log" >&2
    exit 1
fi
rm -f "$pgdir/pwfile"
free_port
pg_port=$REPLY
cat >>"$pgdir/data/postgresql.conf" <<EOF

# bench/chain3-sdk.sh: durability stays at PostgreSQL's defaults (fsync, synchronous_commit, full_page_writes on).
listen_addresses = '127.0.0.1'
port = $pg_port
unix_socket_directories = '$pgdir'
max_connections = 200
# as bench/chain3.sh (PgSetup creates the extension): the same server configuration
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track_planning = on
EOF
if ! "${as_pg[@]}" timeout 90 "$pg_bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/postgres.log" -w -t 60 start \
        >/dev/null 2>&1; then
    log "PostgreSQL did not start; the end of its log:"
    tail -n 30 "$pgdir/postgres.log" >&2
    exit 1
fi
pg_pid=$(head -n 1 "$pgdir/data/postmaster.pid")
db_base=jdbc:postgresql://127.0.0.1:$pg_port
log "phase=postgres port=$pg_port pid=$pg_pid dir=$pgdir"
# one database per phase; PgSetup's second argument is the reference's database, whose ref_run table it drops
# (there is none here): it just creates both
run_child timeout 180 "$java" -cp "$jdbc_jar" bench/chain3/PgSetup.java "$db_base/postgres" "$db_user" "$db_password" \
    inproc sdk

# ---- keys and tokens: a fresh RSA-2048 pair; the pods verify with the public key ---------------------------------

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/private.pem" 2>/dev/null
openssl pkey -in "$work/private.pem" -pubout -out "$work/public.pem" 2>/dev/null
# admin.jwt (registers the workflow) and client.jwt (starts runs), one pair per phase's tenant
run_child timeout 120 "$java" bench/chain3/MintTokens.java "$work/private.pem" "$work/inproc" ductor-bench bench 7200
run_child timeout 120 "$java" bench/chain3/MintTokens.java "$work/private.pem" "$work/sdk" ductor-bench bench-sdk 7200

# mint_worker_token <tenant> <file>: RS256 with the claims MintTokens writes, role "worker" (MintTokens mints only
# admin and client, and bench/chain3/ stays as it is): base64url header.claims, signed with openssl
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
mint_worker_token() {
    local now input
    now=$(date +%s)
    input=$(printf '%s' '{"alg":"RS256","typ":"JWT"}' | b64url).$(printf '{"iss":"ductor-bench","sub":"bench-worker","upn":"bench-worker","groups":["worker"],"tenant":"%s","iat":%d,"exp":%d}' \
        "$1" "$now" $((now + 7200)) | b64url)
    printf '%s.%s' "$input" "$(printf '%s' "$input" | openssl dgst -sha256 -sign "$work/private.pem" -binary | b64url)" >"$2"
}
mint_worker_token bench-sdk "$work/sdk/worker.jwt"

# ---- the phases --------------------------------------------------------------------------------------------------

# start_pod <n> <database>: one prod-mode JVM with bench/chain3.sh's pod settings (migrates its fresh database)
start_pod() {
    local n=$1 db=$2 pod_log=$out_dir/chain3-sdk-pod$1.log
    free_port
    pod_port=$REPLY
    log "phase=ductor-start pod=$n database=$db port=$pod_port log=$pod_log"
    QUARKUS_DATASOURCE_JDBC_URL=$db_base/$db QUARKUS_DATASOURCE_USERNAME=$db_user \
        QUARKUS_DATASOURCE_PASSWORD=$db_password QUARKUS_DATASOURCE_JDBC_MAX_SIZE=10 \
        DUCTOR_EMBEDDED_ENABLED=false QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT=$pod_port QUARKUS_FLYWAY_MIGRATE_AT_START=true \
        MP_JWT_VERIFY_PUBLICKEY_LOCATION=$work/public.pem MP_JWT_VERIFY_ISSUER=ductor-bench \
        DUCTOR_WORKER_THREADS=8 DUCTOR_POD_NAME=chain3-sdk-pod$n \
        setsid "$java" "${jvm_opts[@]}" -jar "$jar" >"$pod_log" 2>&1 &
    pod_pid=$!
    wait_http "http://127.0.0.1:$pod_port/q/health/ready" "$pod_pid" "$pod_log" "Ductor pod $n" || exit 1
}

# drive <side> <tenant> <workflow> <definition> [driver options...]: warm-up and measured phase against the pod;
# figures to fig[] as <side>_*; returns the driver's status
drive() {
    local side=$1 tenant=$2 workflow=$3 body=$4 rc=0
    shift 4
    local api=http://127.0.0.1:$pod_port/api/v1/workflows/$workflow
    run_child "$java" "${driver_jvm_opts[@]}" -cp "$jdbc_jar" bench/chain3/Driver.java --label "$side" \
        --start-urls "$api/runs" --client-token "$work/$side/client.jwt" --jdbc-url "$db_base/$side" \
        --db-user "$db_user" --db-password "$db_password" \
        --poll-sql "SELECT run_id::text, status, (extract(epoch FROM updated_at) * 1000000)::bigint
  FROM eec_workflow_run WHERE run_id = ANY(CAST(? AS uuid[])) AND status <> 'RUNNING'" \
        --out "$work/$side.out" --runs "$runs" --warmup "$warmup" --starters "$starters" --timeout-s "$timeout_s" \
        --pids "$pod_pid" --pg-pid "$pg_pid" --clk-tck "$clk_tck" \
        --register-url "$api" --admin-token "$work/$side/admin.jwt" --register-body "$body" "$@" || rc=$?
    absorb "$work/$side.out" "$side"
    return "$rc"
}

# node definitions: a -> b -> c of handler $1
chain() {
    printf '{"name":"%s","nodes":[{"id":"a","type":"task","handler":"%s"},{"id":"b","type":"task","handler":"%s","dependsOn":["a"]},{"id":"c","type":"task","handler":"%s","dependsOn":["b"]}]}' \
        "$1" "$2" "$2" "$2"
}

proc_ticks() { # utime + stime of a process, in clock ticks
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo NA; return; }
    s=${s##*) }
    awk '{ print $12 + $13 }' <<<"$s"
}

final_rc=0

# 1. in-process: the pod's own workers (DUCTOR_WORKER_THREADS=8) run the noop tasks
start_pod 1 inproc
rc=0
drive inproc bench chain3 "$(chain chain3 noop)" || rc=$?
log "phase=inproc-stop"
stop_pid "$pod_pid" "Ductor pod" 60
pod_pid=""
[ "$rc" -ne 3 ] || exit 1 # a start answered non-2xx: the driver printed it; abort
[ "$rc" -eq 0 ] || final_rc=1

# 2. SDK: a fresh pod (its in-process workers idle: they never claim ext: tasks) and one SDK worker JVM
start_pod 2 sdk
worker_log=$out_dir/chain3-sdk-worker.log
log "phase=worker-start concurrency=$concurrency log=$worker_log"
setsid "$java" "${worker_jvm_opts[@]}" -cp "$SDK_CLASSPATH" bench/sdk/SdkWorker.java "http://127.0.0.1:$pod_port" \
    "$work/sdk/worker.jwt" "$concurrency" >"$worker_log" 2>&1 &
worker_pid=$!
# the worker has no endpoint: it is ready when it says so (single-file launch compiles first: a few seconds)
for ((i = 0; i < ready_timeout * 5; i++)); do
    grep -q ' started: ' "$worker_log" 2>/dev/null && break
    alive "$worker_pid" || { log "SDK worker exited; the end of $worker_log:"; tail -n 40 "$worker_log" >&2; exit 1; }
    sleep 0.2
done
grep -q ' started: ' "$worker_log" || { log "SDK worker not started after ${ready_timeout}s"; exit 1; }

# The worker's CPU over exactly the measured phase: the driver's phase-file handshake (written for PgProfile)
# brackets it: "warm" just before (answered "go"), "done" just after. The driver's own CPU figure covers the pod.
(
    f=$work/sdk.phase
    until [ "$(cat "$f" 2>/dev/null)" = warm ]; do sleep 0.01; done
    proc_ticks "$worker_pid" >"$work/worker.ticks0"
    echo go >"$f.tmp" && mv "$f.tmp" "$f"
    until [ "$(cat "$f" 2>/dev/null)" = done ]; do sleep 0.05; done
    proc_ticks "$worker_pid" >"$work/worker.ticks1"
    awk '/VmHWM/ { printf "%.0f\n", $2 / 1024 }' "/proc/$worker_pid/status" >"$work/worker.rss" 2>/dev/null || true
) &
watch_pid=$!
rc=0
drive sdk bench-sdk chain3-sdk "$(chain chain3-sdk ext:noop)" --phase-file "$work/sdk.phase" || rc=$?
kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
watch_pid=""
if [ -s "$work/worker.ticks0" ] && [ -s "$work/worker.ticks1" ]; then
    fig[worker_cpu_s]=$(awk -v a="$(cat "$work/worker.ticks0")" -v b="$(cat "$work/worker.ticks1")" -v t="$clk_tck" \
        'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/) printf "%.1f", (b - a) / t; else print "NA" }')
    fig[worker_rss_mb]=$(cat "$work/worker.rss" 2>/dev/null || echo NA)
fi
log "phase=sdk-stop"
stop_pid "$worker_pid" "SDK worker" 20 # its shutdown hook prints its stats (claimed, completed, ...) to its log
worker_pid=""
# tasks the worker completed and failed over both batches: (warm-up + runs) x 3 and 0 when all went well
stats=$(grep -o 'WorkerStats\[[^]]*\]' "$worker_log" | tail -n 1 || true)
fig[worker_tasks_completed]=$(sed -n 's/.*completed=\([0-9]*\).*/\1/p' <<<"$stats")
fig[worker_tasks_failed]=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$stats")
stop_pid "$pod_pid" "Ductor pod" 60
pod_pid=""
[ "$rc" -ne 3 ] || exit 1
[ "$rc" -eq 0 ] || final_rc=1

exit "$final_rc"
