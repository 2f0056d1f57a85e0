#!/usr/bin/env bash
# failover: database failovers under load. A pg_auto_failover formation (a monitor, a primary and a synchronous
# standby, Debian's postgresql-15-auto-failover), the packaged Ductor jar in prod mode on a multi-host JDBC URL with
# targetServerType=primary, runs started over HTTP at a steady pace (each with an idempotency key, a 503 retried with
# the same key), FAILOVER_COUNT switches (pg_autoctl perform failover) while the load runs; then every acknowledged
# run is waited for and checked. Everything listens on 127.0.0.1 only. Called by bench/run.sh failover.
# Progress goes to stderr; stdout carries the per-failover figures, the errors other than 503 seen (and failed
# runs, if any), then the last line:
#   acknowledged=<n> lost=<l> stuck=<s> failed=<f> recovery_s=<r>
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
out_dir=$root/target/bench

usage() {
    cat <<'EOF'
usage: bench/run.sh failover      (or: bash bench/failover.sh)

environment (all optional):
  FAILOVER_COUNT        switches performed under load (default 3)
  FAILOVER_INTERVAL_S   load between the formation being whole again and the next switch (default 20)
  FAILOVER_WARMUP_S     load before the first switch (default 20)
  FAILOVER_PACE         runs started per second (default 20)
  FAILOVER_SETTLE_S     how long the acknowledged runs get to finish after the load, before the unfinished ones
                        count as stuck (default 240: a step whose lease was lost is reaped after ductor.worker.lease,
                        30 s, and dispatched again)
  DUCTOR_JAR            the Ductor jar (default target/quarkus-app/quarkus-run.jar, built when missing)
  BENCH_SKIP_BUILD=1    never build; fail when the jar is missing
  BENCH_PG_BIN          PostgreSQL 15 binaries (default /usr/lib/postgresql/15/bin)
  BENCH_PG_OS_USER      the unprivileged user PostgreSQL and pg_autoctl run as (default ductorbench, created when
                        missing)
  JAVA                  the java launcher (default java on PATH, JDK 17+)
  DUCTOR_POD_ENV        extra VAR=value settings for the pod, space separated: DUCTOR_WORKER_LEASE_EXPIRY_RETRIES=0
                        shows what a lost lease did before it had a budget of its own (failed>0: a step on the
                        default single attempt whose result the switch cut off failed its run)

output: logs in target/bench/failover-*.log (the pod's, the monitor's, each node's, the driver's).
exit status: 0 when lost=stuck=failed=0 and every start was acknowledged, 1 otherwise, 2 usage.
EOF
}
case ${1:-} in
    -h | --help) usage; exit 0 ;;
    '') ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
esac

count=${FAILOVER_COUNT:-3}
interval_s=${FAILOVER_INTERVAL_S:-20}
warmup_s=${FAILOVER_WARMUP_S:-20}
pace=${FAILOVER_PACE:-20}
settle_s=${FAILOVER_SETTLE_S:-240}
pg_bin=${BENCH_PG_BIN:-/usr/lib/postgresql/15/bin}
pg_os_user=${BENCH_PG_OS_USER:-ductorbench}
java=${JAVA:-java}
for n in "$count" "$interval_s" "$warmup_s" "$pace" "$settle_s"; do
    [[ $n =~ ^[0-9]+$ ]] || { echo "FAILOVER_* settings must be whole numbers" >&2; exit 2; }
done
[ "$count" -ge 1 ] && [ "$count" -le 20 ] || { echo "FAILOVER_COUNT must be 1..20" >&2; exit 2; }

mkdir -p "$out_dir"
rm -f "$out_dir"/failover-*.log "$out_dir"/failover.properties
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

# ---- processes: each started with setsid, stopped by its process group on exit ---------------------------------

work=$(mktemp -d /tmp/ductor-failover.XXXXXX)
monitor_pid="" node_pids=() pod_pid="" driver_pid="" used_ports=()
as_pg=()

alive() {
    local st
    st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    [[ $st != Z* ]]
}

stop_group() { # <pid> <name> <grace s>
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

report() {
    local props=$work/figures.properties key line=""
    declare -A f=()
    if [ -s "$props" ]; then
        while IFS='=' read -r key value; do [ -n "$key" ] && f[$key]=$value; done <"$props"
        cp "$props" "$out_dir/failover.properties"
    fi
    for key in failovers submitted unacknowledged responses_503 non_503_errors succeeded runs_with_a_second_attempt; do
        echo "$key=${f[$key]:-NA}"
    done
    for key in acknowledged lost stuck failed recovery_s; do
        line="$line${line:+ }$key=${f[$key]:-NA}"
    done
    echo "$line"
}

on_exit() {
    local rc=$? i pid
    set +e
    trap - EXIT INT TERM
    stop_group "$driver_pid" "load driver" 5
    stop_group "$pod_pid" "Ductor pod" 30
    for ((i = ${#node_pids[@]} - 1; i >= 0; i--)); do
        stop_group "${node_pids[i]}" "pg_autoctl node$((i + 1))" 60
    done
    stop_group "$monitor_pid" "pg_autoctl monitor" 60
    for f in monitor node1 node2 pod driver; do
        [ -f "$work/$f.log" ] && cp "$work/$f.log" "$out_dir/failover-$f.log"
    done
    report
    rm -rf "$work"
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

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

# ---- the packages, the user, the jar --------------------------------------------------------------------------

if [ ! -x "$pg_bin/postgres" ] || ! command -v pg_autoctl >/dev/null; then
    log "phase=install postgresql-15 postgresql-15-auto-failover"
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get update >&2
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y postgresql-15 postgresql-15-auto-failover >&2
fi
if [ "$(id -u)" = 0 ]; then # PostgreSQL refuses to run as root
    id -u "$pg_os_user" >/dev/null 2>&1 \
        || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$pg_os_user"
    chown "$pg_os_user" "$work"
    as_pg=(runuser -u "$pg_os_user" --)
fi
db_user=$(if [ "$(id -u)" = 0 ]; then echo "$pg_os_user"; else id -un; fi) # initdb's superuser: the OS user
# pg_autoctl keeps its state under XDG_CONFIG_HOME and XDG_DATA_HOME, and PostgreSQL its Unix sockets in
# PG_REGRESS_SOCK_DIR (pg_autoctl's setting for unix_socket_directories): all inside the work directory
mkdir -p "$work/sock"
[ "$(id -u)" != 0 ] || chown "$pg_os_user" "$work/sock"
pg_env=(env HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/share" XDG_RUNTIME_DIR="$work/run"
    PATH="$pg_bin:$PATH" PG_CONFIG="$pg_bin/pg_config" PG_REGRESS_SOCK_DIR="$work/sock" PGHOST="$work/sock")
autoctl() { "${as_pg[@]}" "${pg_env[@]}" pg_autoctl "$@"; }

jar=${DUCTOR_JAR:-$root/target/quarkus-app/quarkus-run.jar}
if [ ! -f "$jar" ]; then
    if [ -n "${DUCTOR_JAR:-}" ] || [ "${BENCH_SKIP_BUILD:-0}" = 1 ]; then
        log "no Ductor jar at $jar"
        exit 1
    fi
    log "phase=build log=$out_dir/failover-build.log"
    (cd "$root" && timeout 1800 ./mvnw -B -q package -DskipTests -Dinvoker.skip) >"$out_dir/failover-build.log" 2>&1 \
        || { log "build failed; see $out_dir/failover-build.log"; exit 1; }
fi
jdbc_jar=$(ls "$(dirname "$jar")"/lib/main/org.postgresql.postgresql-*.jar 2>/dev/null | sort -V | tail -n 1 || true)

# ---- the formation: monitor, primary, synchronous standby --------------------------------------------------------

free_port; monitor_port=$REPLY
free_port; node_ports=("$REPLY")
free_port; node_ports+=("$REPLY")
monitor_uri="postgres://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable"

# monitor_sql <sql>: one value from the monitor (empty when it does not answer)
monitor_sql() {
    "${as_pg[@]}" "${pg_env[@]}" timeout 10 psql -X -At -d "$monitor_uri" -c "$1" 2>/dev/null || true
}

# await <seconds> <what> <command...>: until the command succeeds, bounded
await() {
    local limit=$1 what=$2 t0=$SECONDS
    shift 2
    until "$@"; do
        if ((SECONDS - t0 > limit)); then
            log "gave up after ${limit}s waiting for $what"
            return 1
        fi
        sleep 0.5
    done
}

formation_whole() { # a primary and a secondary, each in the state the monitor assigned
    [ "$(monitor_sql "SELECT count(*) FROM pgautofailover.node WHERE reportedstate = goalstate
        AND goalstate IN ('primary', 'secondary')")" = 2 ] \
        && [ "$(monitor_sql "SELECT count(*) FROM pgautofailover.node WHERE goalstate = 'primary'")" = 1 ]
}
primary_name() { monitor_sql "SELECT nodename FROM pgautofailover.node WHERE goalstate = 'primary' LIMIT 1"; }

log "phase=monitor port=$monitor_port dir=$work"
setsid "${as_pg[@]}" "${pg_env[@]}" pg_autoctl create monitor --pgdata "$work/monitor" --pgport "$monitor_port" \
    --hostname 127.0.0.1 --listen 127.0.0.1 --auth trust --no-ssl --run >"$work/monitor.log" 2>&1 &
monitor_pid=$!
monitor_up() { [ "$(monitor_sql "SELECT 1")" = 1 ]; }
node1_single() { [ "$(monitor_sql "SELECT reportedstate FROM pgautofailover.node WHERE nodename = 'node1'")" = single ]; }
await 120 "the monitor" monitor_up || { tail -n 30 "$work/monitor.log" >&2; exit 1; }

for n in 1 2; do
    log "phase=node$n port=${node_ports[n - 1]}"
    setsid "${as_pg[@]}" "${pg_env[@]}" pg_autoctl create postgres --pgdata "$work/node$n" --pgport "${node_ports[n - 1]}" \
        --hostname 127.0.0.1 --listen 127.0.0.1 --name "node$n" --dbname ductor --monitor "$monitor_uri" \
        --auth trust --no-ssl --run >"$work/node$n.log" 2>&1 &
    node_pids+=("$!")
    if [ "$n" = 1 ]; then
        await 180 "node1 to run as a single primary" node1_single || { tail -n 30 "$work/node1.log" >&2; exit 1; }
    fi
done
# The standby's pg_basebackup asks for a spread checkpoint (minutes on an idle server); an immediate one ends it.
whole_hurried() {
    formation_whole && return 0
    "${as_pg[@]}" "${pg_env[@]}" timeout 10 psql -X -q -h "$work/sock" -p "${node_ports[0]}" -d ductor -c CHECKPOINT \
        >/dev/null 2>&1 || true
    sleep 2
    return 1
}
await 300 "a primary and a secondary" whole_hurried || { tail -n 30 "$work/node2.log" >&2; exit 1; }
sync_names=$("${as_pg[@]}" "${pg_env[@]}" psql -X -At -h 127.0.0.1 -p "${node_ports[0]}" -d ductor \
    -c "SHOW synchronous_standby_names" 2>/dev/null || true)
log "phase=formation primary=$(primary_name) synchronous_standby_names=$sync_names"
[ -n "$sync_names" ] || log "WARNING: the standby is not synchronous"

# ---- Ductor: one pod on both nodes, the primary found by pgjdbc --------------------------------------------------

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/private.pem" 2>/dev/null
openssl pkey -in "$work/private.pem" -pubout -out "$work/public.pem" 2>/dev/null
timeout 120 "$java" bench/chain3/MintTokens.java "$work/private.pem" "$work" ductor-bench bench 7200
free_port; http_port=$REPLY
jdbc_url="jdbc:postgresql://127.0.0.1:${node_ports[0]},127.0.0.1:${node_ports[1]}/ductor?targetServerType=primary"
log "phase=ductor port=$http_port url=$jdbc_url"
read -r -a pod_env <<<"${DUCTOR_POD_ENV:-}"
env QUARKUS_DATASOURCE_JDBC_URL="$jdbc_url" QUARKUS_DATASOURCE_USERNAME="$db_user" QUARKUS_DATASOURCE_PASSWORD=unused \
    DUCTOR_EMBEDDED_ENABLED=false QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$http_port" \
    MP_JWT_VERIFY_PUBLICKEY_LOCATION="$work/public.pem" MP_JWT_VERIFY_ISSUER=ductor-bench DUCTOR_POD_NAME=failover-pod \
    "${pod_env[@]}" setsid "$java" -XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+UseSerialGC -jar "$jar" \
    >"$work/pod.log" 2>&1 &
pod_pid=$!
pod_ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$http_port/q/health/ready")" = 200 ]; }
await 180 "the pod to be ready" pod_ready || { tail -n 40 "$work/pod.log" >&2; exit 1; }

workflow='{"name":"failover","nodes":[{"id":"a","type":"task","handler":"noop"},{"id":"b","type":"task","handler":"sleep","input":{"ms":20},"dependsOn":["a"]}]}'
code=$(curl -s -o "$work/put.out" -w '%{http_code}' --max-time 10 -X PUT -H "Authorization: Bearer $(cat "$work/admin.jwt")" \
    -H 'Content-Type: application/json' -d "$workflow" "http://127.0.0.1:$http_port/api/v1/workflows/failover")
[[ $code == 20? ]] || { log "registering the workflow answered $code: $(cat "$work/put.out")"; exit 1; }

# ---- load, and the switches under it ---------------------------------------------------------------------------

log "phase=load pace=${pace}/s warmup=${warmup_s}s failovers=$count"
: >"$work/failovers"
max_load_s=$((warmup_s + count * (interval_s + 240) + 60))
# the driver bounds each phase itself; the timeout bounds the whole of it (load, the starts' retries, the checks)
setsid timeout $((max_load_s + 200 + settle_s + 300)) "$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    bench/failover/FailoverLoad.java --base-url "http://127.0.0.1:$http_port" --workflow failover --client-token "$work/client.jwt" --pace "$pace" \
    --stop-file "$work/stop" --failovers-file "$work/failovers" --out "$work/figures.properties" \
    --max-load-s "$max_load_s" --settle-s "$settle_s" \
    >"$work/driver.out" 2>"$work/driver.log" &
driver_pid=$!
sleep "$warmup_s"
for ((i = 1; i <= count; i++)); do
    alive "$driver_pid" || { log "the load driver ended early"; break; }
    before=$(primary_name)
    date +%s%3N >>"$work/failovers"
    log "phase=failover $i of $count: primary $before"
    autoctl perform failover --pgdata "$work/monitor" --wait 120 >>"$work/monitor.log" 2>&1 \
        || log "pg_autoctl perform failover $i returned non-zero (see failover-monitor.log)"
    await 240 "the formation to be whole after failover $i" formation_whole || exit 1
    log "phase=failover $i done: primary $(primary_name)"
    sleep "$interval_s"
done
touch "$work/stop"
log "phase=settle (up to ${settle_s}s for the acknowledged runs to finish)"
rc=0
wait "$driver_pid" || rc=$?
driver_pid=""
cat "$work/driver.out"
echo "pod log: $(grep -c 'This connection has been closed' "$work/pod.log" || true) 'This connection has been closed'," \
    "$(grep -c '^\s*at ' "$work/pod.log" || true) stack-trace lines," \
    "$(grep -c 'WARN' "$work/pod.log" || true) WARN lines, $(grep -c 'ERROR' "$work/pod.log" || true) ERROR lines"
exit "$rc"
