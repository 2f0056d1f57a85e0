#!/usr/bin/env bash
# hostile: issue 28's hostile client, tried on the packaged jar. One pod in prod mode (with the image's
# -XX:+ExitOnOutOfMemoryError) on a throw-away PostgreSQL 15; tenant A runs a steady workload of small chains (three
# noop tasks) while tenant B sends every hostile request of the issue's findings (bench/hostile/Hostile.java): huge
# exponents in events, starts and signals, deep nesting, huge strings, bodies over 1 MiB with and without
# Content-Length, 300 long-poll claims and 300 live streams from ten callers, 2,000 signals on one run, run lists over
# runs with 250 KiB inputs, http steps to loopback, link-local, the pod and PostgreSQL, claims of in-process handlers.
# Then: is the pod alive (same PID, /q/health/ready UP), was every hostile answer a problem (4xx or 503,
# application/problem+json) or an admission within a bound, and how did A's finished runs per second fare during the
# attack against before it. Called by bench/run.sh hostile; see docs/benchmarks.md, section `hostile`.
#
# Copied from bench/chain3-sdk.sh rather than shared with it (each is edited on its own): the PostgreSQL start, the
# process handling and the pod's settings. Keep those in step with it when they change there.
#
# stdout: the figures, one key=value per line; the last line
#   hostile_requests=<n> non_problem_answers=<m> pod_alive=<0|1> a_runs_per_s_before=<b> a_runs_per_s_during=<d> during_vs_before=<d/b>
# exit status: 0 when the pod lived and every answer was a problem or within a bound, 1 otherwise.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
out_dir=$root/target/bench
stem=hostile # the figures' and PostgreSQL log's file names
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # log, alive, stop_pid, stop_pg, run_child, free_port, wait_http, start_local_pg, proc_ticks

case ${1:-} in
    '') ;;
    -h | --help)
        sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
        cat <<'EOF'

environment (all optional):
  DUCTOR_JAR            the Ductor jar (default target/quarkus-app/quarkus-run.jar, built when missing)
  BENCH_SKIP_BUILD=1    never build the jar; fail when it is missing
  BENCH_JVM_OPTS        the pod's JVM options (default "-XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+UseSerialGC
                        -XX:+ExitOnOutOfMemoryError": chain3's, and the image's exit on OOM)
  HOSTILE_OPTS          -D options of the trial: hostile.warmup-s (10), hostile.before-s (20), hostile.hold-s (20,
                        how long long polls and streams are held), hostile.a-clients (4), hostile.big-runs (100)
  JAVA, BENCH_PG_BIN, BENCH_PG_OS_USER, BENCH_READY_TIMEOUT_S   as for chain3
EOF
        exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
esac

java=${JAVA:-java}
pg_bin=${BENCH_PG_BIN:-/usr/lib/postgresql/15/bin}
pg_os_user=${BENCH_PG_OS_USER:-ductorbench}
ready_timeout=${BENCH_READY_TIMEOUT_S:-120}
read -r -a jvm_opts <<<"${BENCH_JVM_OPTS--XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError}"
read -r -a hostile_opts <<<"${HOSTILE_OPTS:-}"

mkdir -p "$out_dir"
rm -f "$out_dir"/hostile.properties "$out_dir"/hostile-pod.log "$out_dir"/hostile-postgres.log "$out_dir"/hostile-trial.log
started=$SECONDS

declare -A fig=()
last_keys=(hostile_requests non_problem_answers pod_alive a_runs_per_s_before a_runs_per_s_during during_vs_before)

report() {
    local key line="" props=$out_dir/hostile.properties
    : >"$props"
    fig[elapsed_s]=$((SECONDS - started))
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

# ---- processes: everything started here is stopped by pid on exit ------------------------------------------------

child=""
pod_pid=""
used_ports=()
pgdir=""
pg_pid=""
as_pg=()
work=$(mktemp -d /tmp/ductor-hostile.XXXXXX)




on_exit() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    [ -n "$child" ] && stop_pid "$child" "helper" 10
    stop_pid "$pod_pid" "Ductor pod" 60
    stop_pg
    rm -rf "$work"
    report
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM




# ---- the jar -------------------------------------------------------------------------------------------------------

locate_jar || exit 1 # bench/lib.sh: the jar (built when missing) and its PostgreSQL driver
fig[ductor_commit]=$(git -C "$root" describe --always --dirty --abbrev=7 2>/dev/null || echo NA)

# ---- PostgreSQL (as bench/chain3-sdk.sh starts it) ----------------------------------------------------------------

start_local_pg || exit 1
db_base=jdbc:postgresql://127.0.0.1:$pg_port
run_child timeout 180 "$java" -cp "$jdbc_jar" bench/chain3/PgSetup.java "$db_base/postgres" "$db_user" "$db_password" hostile hostile_unused

# ---- keys and tokens: tenant A (admin, client), tenant B (admin, ten clients, ten workers: each its own subject) -----

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/private.pem" 2>/dev/null
openssl pkey -in "$work/private.pem" -pubout -out "$work/public.pem" 2>/dev/null
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
# mint <role> <tenant> <subject> <file>: RS256, the claims of bench/chain3/MintTokens.java
mint() {
    local now input
    now=$(date +%s)
    input=$(printf '%s' '{"alg":"RS256","typ":"JWT"}' | b64url).$(printf '{"iss":"ductor-bench","sub":"%s","upn":"%s","groups":["%s"],"tenant":"%s","iat":%d,"exp":%d}' \
        "$3" "$3" "$1" "$2" "$now" $((now + 7200)) | b64url)
    printf '%s.%s' "$input" "$(printf '%s' "$input" | openssl dgst -sha256 -sign "$work/private.pem" -binary | b64url)" >"$4"
}
mint admin tenant-a a-admin "$work/a-admin.jwt"
mint client tenant-a a-client "$work/a-client.jwt"
mint admin tenant-b b-admin "$work/b-admin.jwt"
for i in 0 1 2 3 4 5 6 7 8 9; do
    mint client tenant-b "b-client-$i" "$work/b-client-$i.jwt"
    mint worker tenant-b "b-worker-$i" "$work/b-worker-$i.jwt"
done

# ---- the pod ---------------------------------------------------------------------------------------------------------

free_port
pod_port=$REPLY
pod_log=$out_dir/hostile-pod.log
log "phase=ductor-start port=$pod_port log=$pod_log"
QUARKUS_DATASOURCE_JDBC_URL=$db_base/hostile QUARKUS_DATASOURCE_USERNAME=$db_user \
    QUARKUS_DATASOURCE_PASSWORD=$db_password QUARKUS_DATASOURCE_JDBC_MAX_SIZE=10 \
    DUCTOR_EMBEDDED_ENABLED=false QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT=$pod_port QUARKUS_FLYWAY_MIGRATE_AT_START=true \
    MP_JWT_VERIFY_PUBLICKEY_LOCATION=$work/public.pem MP_JWT_VERIFY_ISSUER=ductor-bench \
    DUCTOR_WORKER_THREADS=8 DUCTOR_POD_NAME=hostile-pod \
    setsid "$java" "${jvm_opts[@]}" -jar "$jar" >"$pod_log" 2>&1 &
pod_pid=$!
wait_http "http://127.0.0.1:$pod_port/q/health/ready" "$pod_pid" "$pod_log" "Ductor pod" || exit 1
fig[pod_pid_start]=$pod_pid

# ---- the trial ---------------------------------------------------------------------------------------------------------

log "phase=trial log=$out_dir/hostile-trial.log"
trial_rc=0
run_child "$java" "${hostile_opts[@]}" -XX:+UseSerialGC bench/hostile/Hostile.java "http://127.0.0.1:$pod_port" "$work" \
    "$pod_port" "$pg_port" "$work/trial.out" "$pod_pid" 2>"$out_dir/hostile-trial.log" >/dev/null || trial_rc=$?
if [ -s "$work/trial.out" ]; then
    while IFS='=' read -r key value; do
        [ -n "$key" ] && fig[$key]=$value
    done <"$work/trial.out"
fi
if [ "$trial_rc" != 0 ]; then
    log "the trial exited $trial_rc; the end of $out_dir/hostile-trial.log:"
    tail -n 20 "$out_dir/hostile-trial.log" >&2
fi

# ---- the pod afterwards: the same process, ready --------------------------------------------------------------------

ready=$(curl -s --max-time 5 "http://127.0.0.1:$pod_port/q/health/ready" || true)
if alive "$pod_pid" && [[ $ready == *'"status": "UP"'* || $ready == *'"status":"UP"'* ]]; then
    fig[pod_alive]=1
else
    fig[pod_alive]=0
    log "the pod is not alive and ready: ${ready:-no answer}; the end of $pod_log:"
    tail -n 30 "$pod_log" >&2
fi
fig[pod_pid_end]=$(alive "$pod_pid" && echo "$pod_pid" || echo gone)
fig[pod_rss_mb]=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$pod_pid/status" 2>/dev/null || echo NA)
fig[pod_oom_lines]=$(grep -c 'OutOfMemoryError' "$pod_log" || true)

[ "$trial_rc" = 0 ] && [ "${fig[pod_alive]}" = 1 ] && [ "${fig[non_problem_answers]:-1}" = 0 ]
