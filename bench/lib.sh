# Shell pieces the benchmark scripts share (bench/chain3.sh, bench/fanout.sh, bench/hostile.sh, bench/backlog-sdk.sh,
# bench/wakeup.sh),
# sourced by them. They read and set the caller's globals: root, out_dir, stem (the name of the figures', logs' and
# PostgreSQL log's files), ready_timeout, used_ports (an array), pg_bin, pg_os_user, as_pg (an array), pgdir, pg_pid,
# pg_port, db_user, db_password, admin_url, child, java, jvm_opts (an array), jar, jdbc_jar, work, SDK_CLASSPATH.

log() { echo "$*" >&2; }

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
        kill -CONT -- "-$pid" 2>/dev/null || true # a paused side (see pause) acts on SIGTERM once it runs
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
    [ -f "$pgdir/postgres.log" ] && cp "$pgdir/postgres.log" "$out_dir/$stem-postgres.log"
    rm -rf "$pgdir"
    pgdir=""
}

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

# A throw-away PostgreSQL 15 for one benchmark, installed with apt-get when the server binaries are missing, run as an
# unprivileged user when this is root (PostgreSQL refuses root), with durability at its defaults.
start_local_pg() {
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
    pgdir=$(mktemp -d /tmp/ductor-$stem-pg.XXXXXX)
    db_user=postgres
    db_password=$(openssl rand -hex 16)
    printf '%s\n' "$db_password" >"$pgdir/pwfile"
    [ "$(id -u)" != 0 ] || chown -R "$pg_os_user" "$pgdir"
    if ! "${as_pg[@]}" timeout 120 "$pg_bin/initdb" -D "$pgdir/data" -U postgres --auth=scram-sha-256 \
            --pwfile="$pgdir/pwfile" -E UTF8 --no-locale >"$pgdir/initdb.log" 2>&1; then
        log "initdb failed:"
        cat "$pgdir/initdb.log" >&2
        return 1
    fi
    rm -f "$pgdir/pwfile"
    free_port
    pg_port=$REPLY
    cat >>"$pgdir/data/postgresql.conf" <<EOF

# bench/$stem: durability stays at PostgreSQL's defaults (fsync, synchronous_commit, full_page_writes on).
listen_addresses = '127.0.0.1'
port = $pg_port
unix_socket_directories = '$pgdir'
max_connections = 200
# profiling aids only
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track_planning = on
${BENCH_PG_CONF:-}
EOF
    if ! "${as_pg[@]}" timeout 90 "$pg_bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/postgres.log" -w -t 60 start \
            >/dev/null 2>&1; then
        log "PostgreSQL did not start; the end of its log:"
        tail -n 30 "$pgdir/postgres.log" >&2
        return 1
    fi
    pg_pid=$(head -n 1 "$pgdir/data/postmaster.pid")
    admin_url=jdbc:postgresql://127.0.0.1:$pg_port/postgres
    log "phase=postgres port=$pg_port pid=$pg_pid dir=$pgdir"
}

proc_ticks() { # utime + stime of a process, in clock ticks
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo NA; return; }
    s=${s##*) }
    awk '{ print $12 + $13 }' <<<"$s"
}

# locate_jar [build log]: the Ductor jar in $jar (DUCTOR_JAR, else target/quarkus-app/quarkus-run.jar of $build_root,
# default $root, packaged there when missing unless BENCH_SKIP_BUILD=1) and the PostgreSQL JDBC driver beside it in
# $jdbc_jar
locate_jar() {
    local build_log=${1:-$out_dir/$stem-build.log} repo=${build_root:-$root}
    jar=${DUCTOR_JAR:-$repo/target/quarkus-app/quarkus-run.jar}
    if [ ! -f "$jar" ]; then
        if [ -n "${DUCTOR_JAR:-}" ] || [ "${BENCH_SKIP_BUILD:-0}" = 1 ]; then
            log "no Ductor jar at $jar (DUCTOR_JAR; BENCH_SKIP_BUILD=${BENCH_SKIP_BUILD:-0})"
            return 1
        fi
        log "phase=build log=$build_log"
        run_child bash -c 'cd "$1" && ./mvnw -B -q package -DskipTests -Dinvoker.skip' build "$repo" >"$build_log" 2>&1 \
            || { log "build failed; the end of $build_log:"; tail -n 40 "$build_log" >&2; return 1; }
    fi
    jar=$(cd "$(dirname "$jar")" && pwd)/$(basename "$jar")
    jdbc_jar=$(ls "$(dirname "$jar")"/lib/main/org.postgresql.postgresql-*.jar 2>/dev/null | sort -V | tail -n 1 || true)
    [ -n "$jdbc_jar" ] || { log "no org.postgresql.postgresql-*.jar in $(dirname "$jar")/lib/main"; return 1; }
}

# sdk_classpath <repository> [build log]: the Java SDK of that repository (its sdk/target jar, packaged when missing or
# older than its sources unless BENCH_SKIP_BUILD=1) and its runtime dependencies, in $SDK_CLASSPATH; kept when set
sdk_classpath() {
    local repo=$1 build_log=${2:-$out_dir/$stem-sdk-build.log} sdk_jar
    [ -z "${SDK_CLASSPATH:-}" ] || return 0
    sdk_jar=$(ls "$repo"/sdk/target/ductor-sdk-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -n 1 || true)
    if [ -z "$sdk_jar" ] || [ -n "$(find "$repo/sdk/src/main" -newer "$sdk_jar" -type f | head -n 1)" ]; then
        [ "${BENCH_SKIP_BUILD:-0}" != 1 ] || { log "no current SDK jar in $repo/sdk/target (BENCH_SKIP_BUILD=1)"; return 1; }
        log "phase=sdk-build log=$build_log"
        run_child bash -c 'cd "$1" && ./mvnw -B -q -f sdk/pom.xml package -DskipTests' build "$repo" >"$build_log" 2>&1 \
            || { log "SDK build failed; see $build_log"; tail -n 40 "$build_log" >&2; return 1; }
        sdk_jar=$(ls "$repo"/sdk/target/ductor-sdk-*.jar | grep -v -e sources -e javadoc | head -n 1)
    fi
    # compile + runtime scope: Jackson, SLF4J's API (no binding: the SDK's own logging is silenced) and Micrometer
    run_child bash -c 'cd "$1" && ./mvnw -B -q -f sdk/pom.xml dependency:build-classpath -DincludeScope=runtime \
        -Dmdep.outputFile="$2"' classpath "$repo" "$work/sdk.classpath" >>"$build_log" 2>&1 \
        || { log "could not resolve the SDK's classpath; see $build_log"; return 1; }
    SDK_CLASSPATH=$sdk_jar:$(cat "$work/sdk.classpath")
}

# mint_worker_token <private key pem> <out file> [tenant] [ttl s]: a "worker" token (RS256, the claims
# bench/chain3/MintTokens.java writes for its admin and client tokens, issuer ductor-bench), signed with openssl
mint_worker_token() {
    local key=$1 out=$2 tenant=${3:-bench} ttl=${4:-7200} now input
    b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
    now=$(date +%s)
    input=$(printf '%s' '{"alg":"RS256","typ":"JWT"}' | b64url).$(printf '{"iss":"ductor-bench","sub":"bench-worker","upn":"bench-worker","groups":["worker"],"tenant":"%s","iat":%d,"exp":%d}' \
        "$tenant" "$now" $((now + ttl)) | b64url)
    printf '%s.%s' "$input" "$(printf '%s' "$input" | openssl dgst -sha256 -sign "$key" -binary | b64url)" >"$out"
}

# launch_pod <pod name> <jdbc url> <port> <migrate true|false> <log> [extra JVM options...]: one prod-mode JVM of $jar
# in its own process group (pid in $REPLY), chain3's pod settings (a pool of 10, 8 in-process workers, tokens
# verified with $work/public.pem, issuer ductor-bench); ready once /q/health/ready answers 200 (wait_http)
launch_pod() {
    local name=$1 url=$2 port=$3 migrate=$4 pod_log=$5
    shift 5
    QUARKUS_DATASOURCE_JDBC_URL=$url QUARKUS_DATASOURCE_USERNAME=$db_user \
        QUARKUS_DATASOURCE_PASSWORD=$db_password QUARKUS_DATASOURCE_JDBC_MAX_SIZE=10 \
        DUCTOR_EMBEDDED_ENABLED=false QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT=$port QUARKUS_FLYWAY_MIGRATE_AT_START=$migrate \
        MP_JWT_VERIFY_PUBLICKEY_LOCATION=$work/public.pem MP_JWT_VERIFY_ISSUER=ductor-bench \
        DUCTOR_WORKER_THREADS=8 DUCTOR_POD_NAME=$name \
        setsid "$java" "${jvm_opts[@]}" "$@" -jar "$jar" >"$pod_log" 2>&1 &
    REPLY=$!
}

# train_pod_aot_cache <java 25+> <quarkus-app dir> <out.aot> <jdbc url> <port> <train log> [JVM options...]: an AOT
# cache trained by src/main/aot/train-aot-cache.sh the way a pod runs (prod profile, that migrated database with
# $db_user/$db_password, embedded PostgreSQL and migrations off, tokens verified with $work/public.pem, issuer
# ductor-bench); the admin and client tokens are $work/admin.jwt and $work/client.jwt (bench/chain3/MintTokens.java),
# the worker's is minted here with $work/private.pem
train_pod_aot_cache() {
    local java25=$1 app=$2 aot=$3 url=$4 port=$5 train_log=$6
    shift 6
    mkdir -p "$work/train-tokens/dev-tokens"
    cp "$work/admin.jwt" "$work/client.jwt" "$work/train-tokens/dev-tokens/"
    mint_worker_token "$work/private.pem" "$work/train-tokens/dev-tokens/worker.jwt" bench 7200
    QUARKUS_DATASOURCE_JDBC_URL=$url QUARKUS_DATASOURCE_USERNAME=$db_user QUARKUS_DATASOURCE_PASSWORD=$db_password \
        QUARKUS_DATASOURCE_JDBC_MAX_SIZE=10 DUCTOR_EMBEDDED_ENABLED=false QUARKUS_FLYWAY_MIGRATE_AT_START=false \
        QUARKUS_HTTP_HOST=127.0.0.1 MP_JWT_VERIFY_PUBLICKEY_LOCATION=$work/public.pem MP_JWT_VERIFY_ISSUER=ductor-bench \
        DUCTOR_WORKER_THREADS=8 DUCTOR_POD_NAME=aot-training TRAIN_PROFILE=prod TRAIN_TOKENS=$work/train-tokens \
        TRAIN_PORT=$port TRAIN_LOG=$train_log \
        run_child bash "$root/src/main/aot/train-aot-cache.sh" "$java25" "$app" "$aot" "$@"
}
