#!/usr/bin/env bash
# SALIENT++ static caches: `loom analyze cache` (remote rows per epoch of every policy at every
# alpha, fanouts 15,10,5, batch 1024) on the real Facebook graph (K=4) and on a products-scale
# SBM graph (K=4 and 8); then, with E2E=1, 4-rank training on the products-scale graph under link
# emulation (10 Gbit/s, 20 us): partition only (synchronous fetch, no cache) -> + pipeline ->
# + VIP cache at alpha 0.2, next to a fully replicated run (every remote row cached).
# Writes bench/results/cache.md (via bench/cache_report.py).
# Usage: bench/bench_cache.sh [BUILD_DIR] (runs BUILD_DIR/loom; default $LOOM, else build/loom).
# Environment: LOOM_DATA (shared data, default ../shared/data; DATA also works), WORK (scratch, default
# /tmp/loom-bench-cache; stores are reused), THREADS (default 2), NODES (SBM nodes, default
# 2500000; 0 skips it), EPOCHS (measured epochs, default 5), E2E (1 = also train, default 1),
# E2E_EPOCHS (default 2), E2E_HIDDEN (default 64: 4 ranks share 2 cores, so compute dominates),
# REANALYZE (1 = redo analyses whose JSON exists).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
use_build_dir "${1:-}"
work="${WORK:-/tmp/loom-bench-cache}"
threads="${THREADS:-2}"
nodes="${NODES:-2500000}"
epochs="${EPOCHS:-5}"
e2e="${E2E:-1}"
e2e_epochs="${E2E_EPOCHS:-2}"
export OMP_NUM_THREADS="$threads"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

require_loom || exit 1
mkdir -p "$work" bench/results

analyze() {  # name parts (kept from an earlier run unless REANALYZE=1)
  [[ -f "$work/analysis-$1.json" && "${REANALYZE:-0}" != 1 ]] && return
  "$loom" --log-level warn analyze cache "$2" --fanouts 15,10,5 --batch-size 1024 \
    --alpha 0,0.01,0.05,0.1,0.2,0.5,1 --policies vip,simulation,degree,halo,random,oracle \
    --epochs "$epochs" --json "$work/analysis-$1.json"
}

partition() {  # store k out
  [[ -f "$3/meta.json" ]] || "$loom" --log-level warn partition "$1" -k "$2" --method metis --seed 1 -o "$3" --overwrite
}

if require_data "$data/graphs/facebook"; then
  [[ -f "$work/facebook/meta.json" ]] || "$loom" --log-level warn import ogb "$data/graphs/facebook" -o "$work/facebook" --overwrite
  partition "$work/facebook" 4 "$work/facebook-k4"
  analyze facebook-k4 "$work/facebook-k4"
fi

if [[ "$nodes" -gt 0 ]]; then
  sbm="$work/sbm-$nodes"
  [[ -f "$sbm/meta.json" ]] || "$loom" --log-level warn generate sbm --nodes "$nodes" --avg-degree 25 --feat-dim 100 \
    --classes 47 --seed 1 -o "$sbm" --overwrite
  for k in 4 8; do
    partition "$sbm" "$k" "$sbm-k$k"
    analyze "sbm-$nodes-k$k" "$sbm-k$k"
  done
  if [[ "$e2e" == 1 ]]; then
    common=(--layers 3 --hidden "${E2E_HIDDEN:-64}" --fanouts 15,10,5 --batch-size 1024 --epochs "$e2e_epochs" --eval-every 0
            --no-exact-eval --net-bandwidth 10Gbit --net-latency 20us --threads 1 --seed 1)
    run() {  # name flags...
      local name="$1"; shift
      mpirun -np 4 --oversubscribe --bind-to none "$loom" --log-level warn train "$sbm-k4" "${common[@]}" \
        --overwrite --metrics "$work/e2e-$name.jsonl" "$@"
    }
    rm -f "$work"/e2e-*.jsonl
    run partition-only --pipeline-depth 0
    run pipeline --pipeline-depth 4
    run pipeline-vip0.2 --pipeline-depth 4 --cache vip --alpha 0.2
    run replicated --pipeline-depth 4 --cache degree --alpha 4  # every remote row, whatever the part sizes
  fi
fi

"$python" bench/cache_report.py "$work" bench/results/cache.md
cat bench/results/cache.md
