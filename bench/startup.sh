#!/usr/bin/env bash
# Start-up benchmark: time-to-ready and JVM CPU to ready of the packaged app on JDK 17, JDK 25, JDK 25 with a
# Leyden AOT cache (JEP 483/514/515) trained on a real workload, and that cache with C1 only. See
# docs/benchmarks.md, section `startup`. Called by bench/run.sh startup.
#
# Two modes (STARTUP_MODE):
#   pod       (default) what a Kubernetes pod does when it wakes: an already migrated external PostgreSQL,
#             embedded PostgreSQL off, migrate-at-start off, a configured JWT key, no samples, no dev tokens.
#             A "database host" (one Ductor JVM in the embedded profile with its loops off) creates and migrates
#             that PostgreSQL and the dev key pair first; it is not measured.
#   embedded  the zero-setup trial: every start runs its own throw-away embedded PostgreSQL (initdb, Flyway).
#
# Environment: JAVA17 (default: java on PATH), JAVA25 (default: /usr/lib/jvm/temurin-25*/bin/java),
# STARTUP_RUNS (default 3), STARTUP_PORT (first HTTP port, default 18480), STARTUP_TRAIN_RUNS (default 50),
# STARTUP_MODE (pod | embedded).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
dir=$root/target/bench/startup
build=$root/target/bench/startup-build
app=$root/target/bench/startup-app
mkdir -p "$dir"
started=$SECONDS

java17=${JAVA17:-$(command -v java)}
java25=${JAVA25:-$(ls -d /usr/lib/jvm/temurin-25*/bin/java 2>/dev/null | sort -V | tail -n 1)}
runs=${STARTUP_RUNS:-3}
port=${STARTUP_PORT:-18480}
train_runs=${STARTUP_TRAIN_RUNS:-50}
mode=${STARTUP_MODE:-pod}
case $mode in pod | embedded) ;; *) echo "STARTUP_MODE must be pod or embedded" >&2; exit 1 ;; esac
[ -x "$java25" ] || { echo "no JDK 25 found (set JAVA25)" >&2; exit 1; }
clk_tck=$(getconf CLK_TCK)

# --- build: package a copy of the sources so a concurrent build in target/ is never raced or reused stale.
log=$dir/maven.log
mkdir -p "$build"
rm -rf "$build/src" "$build/.mvn"
cp -a "$root/pom.xml" "$root/mvnw" "$root/.mvn" "$root/src" "$build/" # -a keeps mtimes: incremental compile
(cd "$build" && ./mvnw -B -q package -Dmaven.test.skip=true) >"$log" 2>&1 \
    || { echo "build failed, see $log" >&2; exit 1; }
rm -rf "$app"
cp -r "$build/target/quarkus-app" "$app"

# --- process bookkeeping: everything we start is killed on exit, only ours.
pids=()
kill_ours() {
    local pid
    for pid in "${pids[@]:-}"; do
        [ -n "$pid" ] || continue
        kill -TERM "$pid" 2>/dev/null || true
    done
    sleep 1
    for pid in "${pids[@]:-}"; do
        [ -n "$pid" ] || continue
        kill -KILL "$pid" 2>/dev/null || true
        kill_pg_of "$pid"
    done
    if [ -n "${host_dir:-}" ]; then # the database host's PostgreSQL, should its JVM not have stopped it
        pkill -TERM -f -- "$host_dir/pgdata" 2>/dev/null || true
    fi
}
trap kill_ours EXIT

# The embedded PostgreSQL's data dir is <java.io.tmpdir>/ductor-pg-<jvm pid>: its postmaster carries it on
# its command line, so we kill only the postgres of our own JVMs (normally it is already gone on a clean stop).
kill_pg_of() {
    local jpid=$1 pg
    for pg in $(pgrep -f "ductor-pg-$jpid( |/|$)" 2>/dev/null || true); do
        kill -TERM "$pg" 2>/dev/null || true
    done
}

now_ns() { date +%s%N; }
cpu_ms() { # utime+stime of one process, in ms (fields 14 and 15 of /proc/<pid>/stat; comm is "(java)")
    awk -v t="$clk_tck" '{ printf "%d", ($14 + $15) * 1000 / t }' "/proc/$1/stat"
}
thread_cpu_ms() { # "main_ms jit_ms": the Java main thread and the C1/C2 compiler threads, in ms
    local pid=$1 f main=0 jit=0 c name
    for f in /proc/"$pid"/task/*/stat; do
        read -r c name < <(awk -v t="$clk_tck" '{ n = $2; for (i = 3; $i !~ /^[A-Z]$/; i++) n = n " " $i;
            printf "%d %s\n", ($(i + 11) + $(i + 12)) * 1000 / t, n }' "$f" 2>/dev/null || echo "0 gone")
        # the launcher's primordial thread (tid = pid) only waits; Java's main thread is another "(java)"
        case $name in "(java)") main=$((main + c)) ;; "(C1 Compiler"* | "(C2 Compiler"*) jit=$((jit + c)) ;; esac
    done
    echo "$main $jit"
}

# start <java> <port> <name> [jvm options...]: starts the app, waits for the first 200 of /q/health/ready
# (polled every 20 ms), prints "ready_ms cpu_ms started_in_ms" and leaves the pid in $app_pid.
start_app() {
    local java=$1 p=$2 name=$3
    shift 3
    local tokens=$dir/$name.tokens out=$dir/$name.log
    rm -rf "$tokens"
    mkdir -p "$tokens"
    local t0 t1 code cpu
    t0=$(now_ns)
    if [ "$mode" = pod ]; then
        # the settings kubernetes/deployment.yaml gives a pod (as environment variables, like there)
        DUCTOR_EMBEDDED_ENABLED=false QUARKUS_FLYWAY_MIGRATE_AT_START=false \
            QUARKUS_DATASOURCE_JDBC_URL="$host_url" QUARKUS_DATASOURCE_USERNAME=postgres \
            QUARKUS_DATASOURCE_PASSWORD=postgres MP_JWT_VERIFY_PUBLICKEY_LOCATION="$host_dir/dev-keys/public.pem" \
            MP_JWT_VERIFY_ISSUER=ductor-dev DUCTOR_POD_NAME="$name" \
            "$java" "$@" -Dquarkus.http.port="$p" -jar "$app/quarkus-run.jar" >"$out" 2>&1 &
    else
        "$java" "$@" -Dquarkus.profile=embedded -Dquarkus.http.port="$p" \
            -Dductor.embedded.ephemeral=true -Dductor.dev-tokens.dir="$tokens" \
            -jar "$app/quarkus-run.jar" >"$out" 2>&1 &
    fi
    app_pid=$!
    pids+=("$app_pid")
    while :; do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$p/q/health/ready" || true)
        if [ "$code" = 200 ]; then
            cpu=$(cpu_ms "$app_pid")
            t1=$(now_ns)
            threads=$(thread_cpu_ms "$app_pid")
            break
        fi
        if ! kill -0 "$app_pid" 2>/dev/null; then
            echo "$name: the app exited before it was ready, see $out" >&2
            exit 1
        fi
        if [ $(((($(now_ns) - t0)) / 1000000000)) -gt 120 ]; then
            echo "$name: not ready after 120 s, see $out" >&2
            exit 1
        fi
        sleep 0.02
    done
    # "started in 2.345s." (Quarkus' own figure: from its main to ready, without JVM boot)
    local si
    si=$(grep -o 'started in [0-9.]*s' "$out" | head -n 1 | grep -o '[0-9.]*' || true)
    si=$(awk -v s="${si:-0}" 'BEGIN { printf "%d", s * 1000 }')
    # log timestamps (HH:MM:SS.mmm, local time) of "embedded PostgreSQL ... url=" (logged once it is up) and
    # of "started in": after_pg = the app's own start-up work once PostgreSQL is up (Flyway, ORM, HTTP).
    local t0_tod pg_tod st_tod
    t0_tod=$(date -d "@$((t0 / 1000000000)).$(printf '%09d' $((t0 % 1000000000)))" +%H:%M:%S.%3N)
    pg_tod=$(grep 'embedded PostgreSQL' "$out" | head -n 1 | grep -oE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}' || true)
    st_tod=$(grep 'started in' "$out" | head -n 1 | grep -oE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}' || true)
    local pg_up after_pg
    read -r pg_up after_pg < <(awk -v a="$t0_tod" -v b="${pg_tod:-$t0_tod}" -v c="${st_tod:-$t0_tod}" '
        function ms(x, f) { split(x, f, ":"); return (f[1] * 3600 + f[2] * 60 + f[3]) * 1000 }
        BEGIN { printf "%d %d\n", ms(b) - ms(a), ms(c) - ms(b) }')
    echo "$(((t1 - t0) / 1000000)) $cpu $si $pg_up $after_pg $threads"
}

stop_app() { # graceful: SIGTERM, wait for the JVM (and so the AOT cache dump on a training run)
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 600); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    kill_pg_of "$pid"
}

# --- pod mode: the database host. One Ductor JVM in the embedded profile creates PostgreSQL in a fresh data
# dir, migrates it and writes the dev key pair and tokens; its coordinator, worker and watchdog loops are off
# so it idles while the pods are measured. Its JDBC URL is read from its log.
host_url=
host_dir=$dir/host
if [ "$mode" = pod ]; then
    rm -rf "$host_dir"
    mkdir -p "$host_dir"
    port=$((port + 1))
    "$java17" -Dquarkus.profile=embedded -Dquarkus.http.port="$port" -Dductor.embedded.data-dir="$host_dir/pgdata" \
        -Dductor.dev-tokens.dir="$host_dir" -Dductor.coordinator.enabled=false -Dductor.worker.enabled=false \
        -Dductor.watchdog.enabled=false -jar "$app/quarkus-run.jar" >"$dir/host.log" 2>&1 &
    host_pid=$!
    pids+=("$host_pid")
    for i in $(seq 1 1200); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$port/q/health/ready" || true)" = 200 ] && break
        kill -0 "$host_pid" 2>/dev/null || { echo "database host exited, see $dir/host.log" >&2; exit 1; }
        sleep 0.1
    done
    host_url=$(grep -o 'url=jdbc:postgresql://[^ ?]*' "$dir/host.log" | head -n 1 | sed 's/^url=//')
    [ -n "$host_url" ] || { echo "no JDBC URL in $dir/host.log" >&2; exit 1; }
    echo "database_host=$host_url" >&2
fi
# --- training run for the AOT cache (src/main/aot/train-aot-cache.sh): a real workload over HTTP, then a
# graceful stop writes the cache. In pod mode it trains as a pod runs, on the database host.
aot=$dir/ductor.aot
port=$((port + 1))
if [ "$mode" = pod ]; then
    DUCTOR_EMBEDDED_ENABLED=false QUARKUS_FLYWAY_MIGRATE_AT_START=false \
        QUARKUS_DATASOURCE_JDBC_URL="$host_url" QUARKUS_DATASOURCE_USERNAME=postgres \
        QUARKUS_DATASOURCE_PASSWORD=postgres MP_JWT_VERIFY_PUBLICKEY_LOCATION="$host_dir/dev-keys/public.pem" \
        MP_JWT_VERIFY_ISSUER=ductor-dev DUCTOR_POD_NAME=train TRAIN_PROFILE=prod TRAIN_TOKENS="$host_dir" \
        TRAIN_PORT="$port" TRAIN_RUNS="$train_runs" TRAIN_LOG="$dir/train.log" \
        bash "$root/src/main/aot/train-aot-cache.sh" "$java25" "$app" "$aot"
else
    TRAIN_PORT="$port" TRAIN_RUNS="$train_runs" TRAIN_LOG="$dir/train.log" \
        bash "$root/src/main/aot/train-aot-cache.sh" "$java25" "$app" "$aot"
fi | tr ' ' '\n'

# --- measured starts: variants interleaved per round, a fresh port, token dir and ephemeral data dir each time.
declare -A ready cpu si pgup afterpg mainms jitms
variants="jvm17 jvm25 aot aot_c1"
for r in $(seq 1 "$runs"); do
    for v in $variants; do
        port=$((port + 1))
        case $v in
            jvm17) set -- "$java17" ;;
            jvm25) set -- "$java25" ;;
            aot) set -- "$java25" -XX:AOTCache="$aot" ;;
            aot_c1) set -- "$java25" -XX:AOTCache="$aot" -XX:TieredStopAtLevel=1 ;;
        esac
        start_app "$1" "$port" "$v-$r" "${@:2}" >"$dir/$v-$r.ready"
        stop_app "$app_pid"
        read -r a b c d e m j <"$dir/$v-$r.ready"
        ready[$v]="${ready[$v]:-} $a"
        cpu[$v]="${cpu[$v]:-} $b"
        si[$v]="${si[$v]:-} $c"
        pgup[$v]="${pgup[$v]:-} $d"
        afterpg[$v]="${afterpg[$v]:-} $e"
        mainms[$v]="${mainms[$v]:-} $m"
        jitms[$v]="${jitms[$v]:-} $j"
        echo "run$r.${v}_ready_ms=$a run$r.${v}_cpu_ms=$b run$r.${v}_main_ms=$m run$r.${v}_jit_ms=$j run$r.${v}_started_in_ms=$c run$r.${v}_pg_up_ms=$d run$r.${v}_after_pg_ms=$e" >&2
    done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "aot_train_warnings=$(grep -c '\[warning\]\[aot' "$dir/train.log" || true)"
echo "aot_start_warnings=$(grep -ci 'aot\|cds' "$dir/aot-1.log" || true)"
echo "mode=$mode"
for v in $variants; do
    echo "${v}_ready_ms=$(median "${ready[$v]}")"
    echo "${v}_cpu_ms=$(median "${cpu[$v]}")"
    echo "${v}_main_thread_cpu_ms=$(median "${mainms[$v]}")"
    echo "${v}_jit_cpu_ms=$(median "${jitms[$v]}")"
    echo "${v}_started_in_ms=$(median "${si[$v]}")"
    if [ "$mode" = embedded ]; then
        echo "${v}_pg_up_ms=$(median "${pgup[$v]}")"
        echo "${v}_after_pg_ms=$(median "${afterpg[$v]}")"
    fi
    echo "${v}_ready_ms_all=$(echo ${ready[$v]} | tr ' ' ',')"
    echo "${v}_cpu_ms_all=$(echo ${cpu[$v]} | tr ' ' ',')"
done
if [ "$mode" = pod ]; then stop_app "$host_pid"; fi
echo "elapsed_s=$((SECONDS - started))"
echo "jvm17_ready_ms=$(median "${ready[jvm17]}") jvm25_ready_ms=$(median "${ready[jvm25]}") aot_ready_ms=$(median "${ready[aot]}") aot_cpu_ms=$(median "${cpu[aot]}")"
