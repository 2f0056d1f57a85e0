#!/usr/bin/env bash
# Ductor benchmarks: one entry point, one scenario per argument. See docs/benchmarks.md.
#
#   bench/run.sh ticks     committed coordinator ticks/s (low and high contention, group commit) vs pgbench
#
# Each scenario builds what it needs, sends Maven's output to a log under target/bench/, and prints only its
# figures as key=value lines. Database: the embedded, throw-away PostgreSQL the test profile starts, or an
# external one when QUARKUS_DATASOURCE_JDBC_URL (and _USERNAME/_PASSWORD) are set in the environment.
# BENCH_OPTS adds -D options to the Maven call, e.g. BENCH_OPTS="-Dbench.runs=400 -Dbench.pgbench.seconds=5";
# PGBENCH names the pgbench binary (none: no SQL ceiling).
set -euo pipefail

cd "$(dirname "$0")/.."

usage() {
    cat <<'EOF'
usage: bench/run.sh <scenario>

scenarios:
  ticks   committed ticks/s through Ductor's tick at low and high contention, conflict and wasted-work
          ratios, p50/p99 tick latency, a group-commit experiment, and the raw-SQL ceiling of the same
          statements with pgbench (bench/sql/tick.sql); last line:
          ticks_per_s=<n> ceiling_per_s=<m> ratio=<n/m>

environment:
  QUARKUS_DATASOURCE_JDBC_URL, QUARKUS_DATASOURCE_USERNAME, QUARKUS_DATASOURCE_PASSWORD
          use this PostgreSQL instead of the embedded one: a scratch database no Ductor pod uses (the
          benchmark writes under tenant ductor-bench and deletes those rows at the end)
  PGBENCH
          the pgbench to use (default: pgbench on PATH, else /usr/lib/postgresql/*/bin/pgbench); none: skip
  BENCH_OPTS
          extra -D options for the benchmark (see docs/benchmarks.md for the bench.* keys)
EOF
}

find_pgbench() {
    if [ -n "${PGBENCH+set}" ]; then # explicit choice; PGBENCH=none skips the ceiling
        [ "$PGBENCH" = none ] || echo "$PGBENCH"
        return
    fi
    if command -v pgbench >/dev/null 2>&1; then
        command -v pgbench
        return
    fi
    local candidate
    for candidate in $(ls -d /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V -r); do
        if [ -x "$candidate" ]; then
            echo "$candidate"
            return
        fi
    done
}

# Runs one *Bench class through surefire (surefire's default includes never pick up *Bench, so a plain
# ./mvnw verify does not run it), logging everything Maven says to $log.
run_bench_class() {
    local class=$1 log=$2
    shift 2
    # shellcheck disable=SC2086
    ./mvnw -B test -Dtest="$class" -Dsurefire.failIfNoSpecifiedTests=false "$@" ${BENCH_OPTS:-} >"$log" 2>&1
}

scenario_ticks() {
    local dir=target/bench
    mkdir -p "$dir"
    local log="$dir/ticks-maven.log" out="$dir/ticks.properties"
    rm -f "$out"
    local pgbench
    pgbench=$(find_pgbench || true)
    if [ -z "$pgbench" ]; then
        echo "pgbench not found (neither on PATH nor /usr/lib/postgresql/*/bin/pgbench, or PGBENCH=none):" \
             "no SQL ceiling; install PostgreSQL's client tools (Debian: postgresql-client) to get one"
    fi
    echo "scenario=ticks log=$log"
    local started=$SECONDS
    if ! run_bench_class TickBench "$log" -Dbench.scenario=ticks -Dbench.out="$PWD/$out" \
            -Dbench.pgbench="$pgbench" -Dbench.sql="$PWD/bench/sql/tick.sql"; then
        echo "benchmark failed; the end of $log:" >&2
        tail -n 40 "$log" >&2
        echo "ticks_per_s=NA ceiling_per_s=NA ratio=NA"
        exit 1
    fi
    if [ ! -s "$out" ] || ! grep -q '^ticks_per_s=' "$out"; then
        echo "the benchmark did not run or wrote no figures (is TickBench compiled? see $log)" >&2
        echo "ticks_per_s=NA ceiling_per_s=NA ratio=NA"
        exit 1
    fi
    grep -v -E '^(ticks_per_s|ceiling_per_s|ratio)=' "$out"
    echo "elapsed_s=$((SECONDS - started))"
    value() { grep -E "^$1=" "$out" | tail -n 1 | cut -d= -f2-; }
    echo "ticks_per_s=$(value ticks_per_s) ceiling_per_s=$(value ceiling_per_s) ratio=$(value ratio)"
}

case "${1:-}" in
    ticks)
        scenario_ticks
        ;;
    -h | --help | help)
        usage
        ;;
    *)
        if [ -n "${1:-}" ]; then
            echo "unknown scenario: $1" >&2
        fi
        usage >&2
        exit 2
        ;;
esac
