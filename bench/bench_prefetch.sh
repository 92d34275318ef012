#!/usr/bin/env bash
# Rudder-style adaptive prefetching: 4 ranks on Facebook (METIS K=4) under link emulation
# (10 Gbit/s, 20 us), prefetch fractions 0.05 and 0.25 of each rank's halo, with and without a
# mid-run change of fanouts / batch size / training subset, for every controller: none (no
# buffer, DistDGL-like), never (static prefetch), periodic, rules, logistic and llm (against
# bench/peers/scripted_llm.py, a scripted agent speaking Ollama's API), and lookahead (the buffer
# keeps the fetched rows the next 4 sampled minibatches use). Records epoch time,
# remote rows and bytes, hit rate, decisions and test accuracy in bench/results/prefetch.md, with the
# bound on any controller (`loom analyze prefetch`: best static buffer and Belady's MIN).
# Usage: bench/bench_prefetch.sh [BUILD_DIR]. Environment: LOOM_DATA (or DATA: shared data), WORK (scratch,
# default /tmp/loom-bench-prefetch), EPOCHS (default 6), CHANGE_EPOCH (default 3),
# PRODUCTS_PARTS (optional: also run a products-scale store), FACEBOOK (0 skips the Facebook runs).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
use_build_dir "${1:-}"
work="${WORK:-/tmp/loom-bench-prefetch}"
epochs="${EPOCHS:-6}"
change_epoch="${CHANGE_EPOCH:-3}"
port=18434
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
require_loom || exit 1
require_data "$data/graphs/facebook" || exit 0
mkdir -p "$work" bench/results
[[ -f "$work/facebook/meta.json" ]] || "$loom" --log-level warn import ogb "$data/graphs/facebook" -o "$work/facebook" --overwrite
[[ -f "$work/facebook-k4/meta.json" ]] || "$loom" --log-level warn partition "$work/facebook" -k 4 --seed 1 -o "$work/facebook-k4" --overwrite

"$python" bench/peers/scripted_llm.py --port "$port" --delay 0.2 &
agent=$!
trap 'kill $agent 2>/dev/null' EXIT
sleep 1

common=(--layers 3 --hidden 256 --fanouts 15,10,5 --batch-size 128 --epochs "$epochs" --eval-every "$epochs"
        --no-exact-eval --net-bandwidth 10Gbit --net-latency 20us --threads 1 --seed 1 --prefetch-period 8)
change=(--change-epoch "$change_epoch" --change-fanouts 10,10,10 --change-batch-size 256 --change-train-fraction 0.5)
[[ "${FACEBOOK:-1}" == 1 ]] && rm -f "$work"/run-steady-* "$work"/run-change-*
for scenario in steady change; do
  [[ "${FACEBOOK:-1}" == 1 ]] || break
  extra=()
  [[ "$scenario" == change ]] && extra=("${change[@]}")
  for fraction in 0.05 0.25; do
    for controller in none never periodic rules logistic llm lookahead; do
      [[ "$controller" == none && "$fraction" != 0.05 ]] && continue  # no buffer: one run per scenario
      name="$scenario-$fraction-$controller"
      echo "bench_prefetch: $name" >&2
      mpirun -np 4 --oversubscribe --bind-to none "$loom" --log-level warn train "$work/facebook-k4" "${common[@]}" \
        "${extra[@]}" --controller "$controller" --prefetch "$fraction" --evict-every 8 \
        --llm-url "http://127.0.0.1:$port" --overwrite --metrics "$work/run-$name.jsonl" --decision-log "$work/decisions-$name.jsonl"
    done
  done
done
# Products scale (PRODUCTS_PARTS = a 4-way partitioned products-scale store, e.g. the one
# bench_cache.sh builds): steady scenario, F = 0.25, one epoch, hidden 64, batch 1024 per rank.
if [[ -n "${PRODUCTS_PARTS:-}" ]]; then
  for controller in none never periodic rules logistic lookahead; do
    name="products-0.25-$controller"
    echo "bench_prefetch: $name" >&2
    mpirun -np 4 --oversubscribe --bind-to none "$loom" --log-level warn train "$PRODUCTS_PARTS" --layers 3 --hidden 64 \
      --fanouts 15,10,5 --batch-size 1024 --epochs 1 --eval-every 0 --no-exact-eval --net-bandwidth 10Gbit \
      --net-latency 20us --threads 1 --seed 1 --prefetch-period 8 --controller "$controller" --prefetch 0.25 \
      --evict-every 8 --overwrite --metrics "$work/run-$name.jsonl"
  done
fi
# The bound on any controller, over the same sampled minibatches (steady scenario).
if [[ "${FACEBOOK:-1}" == 1 ]]; then
  "$loom" --log-level warn analyze prefetch "$work/facebook-k4" --fanouts 15,10,5 --batch-size 128 --epochs "$epochs" \
    --seed 1 --prefetch 0.05,0.25,0.5,1 --json "$work/bound-steady.json"
fi
if [[ -n "${PRODUCTS_PARTS:-}" ]]; then
  "$loom" --log-level warn analyze prefetch "$PRODUCTS_PARTS" --fanouts 15,10,5 --batch-size 1024 --epochs 1 --seed 1 \
    --prefetch 0.25 --json "$work/bound-products.json"
fi
"$python" bench/prefetch_report.py "$work" bench/results/prefetch.md
cat bench/results/prefetch.md
