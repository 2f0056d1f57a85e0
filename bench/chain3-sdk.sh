#!/usr/bin/env bash
# chain3-sdk: chain3 with a third side, the same chain of ext: steps run by a separate worker JVM built on the Java
# SDK (bench/sdk/SdkWorker.java, DuctorWorker over HTTP, 8 slots), measured in the same invocation, in alternating
# rounds, against the in-process side and the plain-JDBC reference: bench/chain3.sh --sdk (its --help lists the
# settings). Last line:
#   runs_per_s=… inproc_runs_per_s=… ref_runs_per_s=… sdk_vs_inproc=… ratio=… p50_ms=… p99_ms=… server_cpu_ms_per_step=…
# Called by bench/run.sh chain3-sdk. See docs/benchmarks.md, section `chain3-sdk`.
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
    -h | --help) exec bash bench/chain3.sh --help ;;
esac
exec bash bench/chain3.sh --sdk "$@"
