#!/usr/bin/env bash
# soak: does retention keep the database's size flat under steady load? One pod of the packaged jar in prod mode on a
# throw-away PostgreSQL 15 (Debian's package, run as an unprivileged user), runs of chain3 (three noop tasks) started at
# a steady SOAK_RATE a second for SOAK_MINUTES, retention at SOAK_RETENTION (PT1M) with a pass every
# SOAK_RETENTION_INTERVAL (10s). Every minute the sizes of the eec_* tables (heap, indexes, total with TOAST) and
# their rows are sampled and printed as a table (bench/soak/Soak.java). Called by bench/run.sh soak; see
# docs/benchmarks.md, section `soak`.
#
# stdout: the table, then the figures, one key=value per line; the last line
#   minutes=<m> runs_started=<n> deleted_runs=<d> run_table_kb_first=<a> run_table_kb_last=<b> total_kb_first=<c>
#   total_kb_last=<e> growth_last_half_pct=<g>
# ("first": the sample after the first minute; growth_last_half_pct: of every eec_* table's total size, from the
# middle sample to the last)
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
out_dir=$root/target/bench
stem=soak # the figures' and PostgreSQL log's file names
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # log, alive, stop_pid, stop_pg, run_child, free_port, wait_http, start_local_pg, proc_ticks

case ${1:-} in
    '') ;;
    -h | --help)
        sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
        cat <<'EOF2'

environment (all optional):
  SOAK_MINUTES              how long the load runs (default 30)
  SOAK_RATE                 runs started a second (default 100, about half of what chain3 finishes on a 2-core host
                            shared with other work)
  SOAK_RETENTION            ductor.retention.default of the pod (default PT1M)
  SOAK_RETENTION_INTERVAL   ductor.retention.interval of the pod (default 10s)
  SOAK_SAMPLE_S             seconds between samples (default 60)
  DUCTOR_JAR                the Ductor jar (default target/quarkus-app/quarkus-run.jar, built when missing)
  BENCH_SKIP_BUILD=1        never build the jar; fail when it is missing
  BENCH_JVM_OPTS            the pod's JVM options (default chain3's)
  BENCH_PG_CONF             extra postgresql.conf lines (e.g. autovacuum settings to compare)
  JAVA, BENCH_PG_BIN, BENCH_PG_OS_USER, BENCH_READY_TIMEOUT_S   as for chain3
EOF2
        exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
esac

java=${JAVA:-java}
pg_bin=${BENCH_PG_BIN:-/usr/lib/postgresql/15/bin}
pg_os_user=${BENCH_PG_OS_USER:-ductorbench}
ready_timeout=${BENCH_READY_TIMEOUT_S:-120}
read -r -a jvm_opts <<<"${BENCH_JVM_OPTS--XX:MaxRAM=768m -XX:MaxRAMPercentage=75 -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError}"
minutes=${SOAK_MINUTES:-30}
rate=${SOAK_RATE:-100}
retention=${SOAK_RETENTION:-PT1M}
retention_interval=${SOAK_RETENTION_INTERVAL:-10s}
sample_s=${SOAK_SAMPLE_S:-60}

mkdir -p "$out_dir"
rm -f "$out_dir"/soak.properties "$out_dir"/soak-pod.log "$out_dir"/soak-postgres.log
started=$SECONDS
last_line="minutes=NA runs_started=NA deleted_runs=NA run_table_kb_first=NA run_table_kb_last=NA total_kb_first=NA total_kb_last=NA growth_last_half_pct=NA"

child=""
pod_pid=""
used_ports=()
pgdir=""
pg_pid=""
as_pg=()
work=$(mktemp -d /tmp/ductor-soak.XXXXXX)

on_exit() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    [ -n "$child" ] && stop_pid "$child" "soak driver" 10
    stop_pid "$pod_pid" "Ductor pod" 60
    stop_pg
    rm -rf "$work"
    echo "elapsed_s=$((SECONDS - started))"
    if [ -s "$out_dir/soak.properties" ]; then
        cat "$out_dir/soak.properties"
    else
        echo "$last_line"
    fi
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the jar -------------------------------------------------------------------------------------------------------

locate_jar || exit 1 # bench/lib.sh: the jar (built when missing) and its PostgreSQL driver
echo "ductor_commit=$(git -C "$root" describe --always --dirty --abbrev=7 2>/dev/null || echo NA)"

# ---- PostgreSQL ------------------------------------------------------------------------------------------------------

start_local_pg || exit 1
db_base=jdbc:postgresql://127.0.0.1:$pg_port
run_child timeout 180 "$java" -cp "$jdbc_jar" bench/chain3/PgSetup.java "$db_base/postgres" "$db_user" "$db_password" soak soak_unused

# ---- keys and tokens (the claims of bench/chain3/MintTokens.java) ----------------------------------------------------

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/private.pem" 2>/dev/null
openssl pkey -in "$work/private.pem" -pubout -out "$work/public.pem" 2>/dev/null
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
mint() { # mint <role> <tenant> <subject> <file>
    local now input
    now=$(date +%s)
    input=$(printf '%s' '{"alg":"RS256","typ":"JWT"}' | b64url).$(printf '{"iss":"ductor-bench","sub":"%s","upn":"%s","groups":["%s"],"tenant":"%s","iat":%d,"exp":%d}' \
        "$3" "$3" "$1" "$2" "$now" $((now + 4 * 3600)) | b64url)
    printf '%s.%s' "$input" "$(printf '%s' "$input" | openssl dgst -sha256 -sign "$work/private.pem" -binary | b64url)" >"$4"
}
mint admin bench soak-admin "$work/admin.jwt"
mint client bench soak-client "$work/client.jwt"

# ---- the pod ---------------------------------------------------------------------------------------------------------

free_port
pod_port=$REPLY
pod_log=$out_dir/soak-pod.log
log "phase=ductor-start port=$pod_port log=$pod_log retention=$retention interval=$retention_interval"
QUARKUS_DATASOURCE_JDBC_URL=$db_base/soak QUARKUS_DATASOURCE_USERNAME=$db_user \
    QUARKUS_DATASOURCE_PASSWORD=$db_password QUARKUS_DATASOURCE_JDBC_MAX_SIZE=10 \
    DUCTOR_EMBEDDED_ENABLED=false QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT=$pod_port QUARKUS_FLYWAY_MIGRATE_AT_START=true \
    MP_JWT_VERIFY_PUBLICKEY_LOCATION=$work/public.pem MP_JWT_VERIFY_ISSUER=ductor-bench \
    DUCTOR_WORKER_THREADS=8 DUCTOR_POD_NAME=soak-pod \
    DUCTOR_RETENTION_DEFAULT=$retention DUCTOR_RETENTION_INTERVAL=$retention_interval \
    setsid "$java" "${jvm_opts[@]}" -jar "$jar" >"$pod_log" 2>&1 &
pod_pid=$!
wait_http "http://127.0.0.1:$pod_port/q/health/ready" "$pod_pid" "$pod_log" "Ductor pod" || exit 1

workflow='{"name":"chain3","nodes":[{"id":"a","type":"task","handler":"noop"},{"id":"b","type":"task","handler":"noop","dependsOn":["a"]},{"id":"c","type":"task","handler":"noop","dependsOn":["b"]}]}'
status=$(curl -s -o "$work/put.out" -w '%{http_code}' -X PUT -H "Authorization: Bearer $(cat "$work/admin.jwt")" \
    -H 'Content-Type: application/json' --data "$workflow" "http://127.0.0.1:$pod_port/api/v1/workflows/chain3")
[ "$status" = 201 ] || { log "PUT chain3 answered $status: $(cat "$work/put.out")"; exit 1; }

# ---- the load and the samples ------------------------------------------------------------------------------------------

log "phase=soak minutes=$minutes rate=$rate sample_s=$sample_s"
run_child "$java" -XX:+UseSerialGC -cp "$jdbc_jar" bench/soak/Soak.java --base-url "http://127.0.0.1:$pod_port" \
    --workflow chain3 --client-token "$work/client.jwt" --jdbc-url "$db_base/soak" --db-user "$db_user" \
    --db-password "$db_password" --out "$out_dir/soak.properties" --rate "$rate" --minutes "$minutes" --sample-s "$sample_s"
echo "pod_rss_mb=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$pod_pid/status" 2>/dev/null || echo NA)"
echo "retention_warnings=$(grep -c 'retention pass failed' "$pod_log" || true)"
