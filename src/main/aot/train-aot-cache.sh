#!/usr/bin/env bash
# Builds a JDK 25 AOT cache (Leyden: JEP 483 class loading and linking, JEP 515 method profiles) for the packaged
# app, trained on a real workload: the app starts with -XX:AOTCacheOutput, a chain workflow is defined and
# TRAIN_RUNS runs (default 50) go through HTTP to SUCCEEDED, their histories and the run list are read; then for
# TRAIN_SECONDS (default 60) src/main/aot/TrainingLoad.java loads it as a busy pod is loaded (closed-loop run starts
# of a noop chain by 4 threads, an external worker's claims and batched reports, signals, a console's event stream,
# reads), so the cache holds the method profiles of the hot paths and not only of start-up; then a graceful stop
# makes the JVM write the cache (JEP 514's one-step training).
#
#   src/main/aot/train-aot-cache.sh <java 25+> <quarkus-app dir> <out.aot> [extra JVM options...]
#
# One command for a `java -jar` user, from the repository's root after ./mvnw package:
#   src/main/aot/train-aot-cache.sh /usr/lib/jvm/temurin-25-jdk-amd64/bin/java target/quarkus-app target/ductor.aot
# Then start the same app with the same JVM and classpath path: java -XX:AOTCache=<out.aot> -jar
# <quarkus-app dir>/quarkus-run.jar (a cache from another JVM build or jar set is ignored with a warning). Give the
# training the JVM options the app will run with (heap, GC): some must match (JEP 483).
#
# Where it trains: by default the zero-setup embedded profile with a throw-away PostgreSQL and its own dev
# tokens. To train the way a pod runs, export the pod's settings (QUARKUS_DATASOURCE_*, DUCTOR_EMBEDDED_ENABLED=
# false, MP_JWT_VERIFY_*) and set TRAIN_PROFILE=prod and TRAIN_TOKENS to a directory with dev-tokens/admin.jwt,
# dev-tokens/client.jwt and dev-tokens/worker.jwt valid for that key. TRAIN_PORT: HTTP port (default 18470);
# TRAIN_LOG: the app's log (default <out.aot>.train.log); TRAIN_JAR: the -jar argument exactly as the measured
# starts will give it (default <quarkus-app dir>/quarkus-run.jar; the cache records the class path);
# TRAIN_SECONDS=0: the 50 runs only; TRAIN_CLIENT_JAVA: the JDK 17+ `java` that runs TrainingLoad.java (default:
# java on PATH, else the training JVM; a JRE has no source launcher). Prints one line:
# train_runs_succeeded=<n>/<m> train_starts=... (TrainingLoad's figures) aot_cache_mb=<size>.
set -euo pipefail

java=${1:?usage: train-aot-cache.sh <java> <quarkus-app dir> <out.aot> [JVM options]}
app=${2:?quarkus-app dir}
out=${3:?out.aot}
shift 3
runs=${TRAIN_RUNS:-50}
seconds=${TRAIN_SECONDS:-60}
here=$(cd "$(dirname "$0")" && pwd)
client_java=${TRAIN_CLIENT_JAVA:-$(command -v java || echo "$java")}
port=${TRAIN_PORT:-18470}
profile=${TRAIN_PROFILE:-embedded}
work=$(mktemp -d)
log=${TRAIN_LOG:-$out.train.log}
tokens=${TRAIN_TOKENS:-$work}

options=(-XX:AOTCacheOutput="$out" "$@" -Dquarkus.http.port="$port" -Dquarkus.profile="$profile")
if [ "$profile" = embedded ]; then
    # enabled=true over an image's DUCTOR_EMBEDDED_ENABLED=false (system properties outrank the environment)
    options+=(-Dductor.embedded.enabled=true -Dductor.embedded.ephemeral=true -Dductor.dev-tokens.dir="$tokens")
fi
rm -f "$out"
"$java" "${options[@]}" -jar "${TRAIN_JAR:-$app/quarkus-run.jar}" >"$log" 2>&1 &
pid=$!
cleanup() {
    kill -KILL "$pid" 2>/dev/null || true
    # the embedded profile's PostgreSQL lives in <java.io.tmpdir>/ductor-pg-<jvm pid>, only ours is touched
    pkill -TERM -f "ductor-pg-$pid( |/|$)" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

for _ in $(seq 1 1200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$port/q/health/ready" || true)" = 200 ] && break
    kill -0 "$pid" 2>/dev/null || { echo "the training run exited before it was ready, see $log" >&2; tail -20 "$log" >&2; exit 1; }
    sleep 0.1
done
for _ in $(seq 1 100); do [ -s "$tokens/dev-tokens/client.jwt" ] && break; sleep 0.1; done
admin=$(cat "$tokens/dev-tokens/admin.jwt")
client=$(cat "$tokens/dev-tokens/client.jwt")
base=http://127.0.0.1:$port/api/v1

curl -sf -X PUT "$base/workflows/aot-training" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
    -d '{"nodes": [{"id": "a", "type": "task", "handler": "noop"},
                   {"id": "b", "type": "task", "handler": "echo", "dependsOn": ["a"]},
                   {"id": "c", "type": "task", "handler": "noop", "dependsOn": ["b"]}]}' >/dev/null \
    || curl -sf "$base/workflows/aot-training" -H "Authorization: Bearer $admin" >/dev/null # defined by an earlier run
run_ids=()
for i in $(seq 1 "$runs"); do
    id=$(curl -sf -X POST "$base/workflows/aot-training/runs" -H "Authorization: Bearer $client" \
        -H 'Content-Type: application/json' -d "{\"input\": {\"n\": $i}}" | sed -E 's/.*"runId" *: *"([^"]+)".*/\1/')
    run_ids+=("$id")
done
succeeded=0
deadline=$((SECONDS + 120))
while [ "$SECONDS" -lt "$deadline" ]; do
    succeeded=0
    for id in "${run_ids[@]}"; do
        curl -sf "$base/runs/$id" -H "Authorization: Bearer $client" | grep -q '"status" *: *"SUCCEEDED"' \
            && succeeded=$((succeeded + 1))
    done
    [ "$succeeded" -lt "$runs" ] || break
    sleep 0.5
done
for id in "${run_ids[@]}"; do
    curl -sf "$base/runs/$id/history" -H "Authorization: Bearer $client" >/dev/null || true
done
curl -sf "$base/runs?workflow=aot-training&limit=50" -H "Authorization: Bearer $client" >/dev/null || true

load=""
if [ "$seconds" -gt 0 ]; then
    load=$("$client_java" -XX:TieredStopAtLevel=1 "$here/TrainingLoad.java" "http://127.0.0.1:$port" \
        "$tokens/dev-tokens" "$seconds" 2>>"$log") || { echo "the training load failed: $load (see $log)" >&2; exit 1; }
fi

# Graceful stop: the JVM writes the cache on exit.
kill -TERM "$pid"
for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
wait "$pid" 2>/dev/null || true
[ -s "$out" ] || { echo "the training run wrote no AOT cache ($out), see $log" >&2; exit 1; }
[ "$succeeded" -eq "$runs" ] || { echo "only $succeeded of $runs training runs succeeded, see $log" >&2; exit 1; }
echo "train_runs_succeeded=$succeeded/$runs${load:+ $load} aot_cache_mb=$(awk -v b="$(stat -c %s "$out")" 'BEGIN { printf "%.1f", b / 1048576 }')"
