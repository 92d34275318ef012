#!/usr/bin/env bash
# The replay of issue 57's bad inputs and a sweep of every numeric option of the main commands over
# 0, -1 and 2^40 (bench/reliability_replay.py says how each run is classed): writes
# bench/results/reliability_replay.md. Minutes on 2 cores. Usage: bench/bench_reliability.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_loom || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PYTHONPATH=$PWD/build/python${PYTHONPATH:+:$PYTHONPATH} "$python" bench/reliability_replay.py "$loom" mpirun "$work" \
  bench/results/reliability_replay.md "$data"
