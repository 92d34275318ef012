#!/usr/bin/env bash
# The sampler against pyg-lib (issue 47), side by side in one run on the products-scale SBM
# (`loom generate sbm --nodes 2500000 --avg-degree 25 --feat-dim 100 --classes 47 --seed 1`, made
# once in bench/work/sampler): bench/bench_sampler (Loom's NeighborSampler on the mapped store, 1 and
# 2 threads, then workers of one thread each) and bench/peers/pyg_sampler.py (pyg-lib's
# neighbor_sample on the same store, 1 and 2 threads), fanouts 15,10,5, batch 1024, 200 batches each.
# Prints both tables and the speed ratio per thread count; writes them to $OUT (default
# bench/work/sampler/sampler-products.md) for bench/results/sampler.md.
# Env: LOOM, LOOM_PYTHON (bench/lib.sh); LOOM_PYG (default ../shared/peers/pyg; the peer is skipped
# with a message where it is absent); BENCH_SAMPLER (default build/bench/bench_sampler); NODES
# (default 2500000); WORKERS (default 1,2).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=bench/work/sampler
pyg=${LOOM_PYG:-../shared/peers/pyg}
bench_sampler=${BENCH_SAMPLER:-build/bench/bench_sampler}
nodes=${NODES:-2500000}
store=$work/sbm-$nodes
out=${OUT:-$work/sampler-products.md}
require_loom || exit 1
[[ -x $bench_sampler ]] || { echo "$bench: no $bench_sampler (build it: cmake --build build --target bench_sampler)" >&2; exit 1; }
mkdir -p "$work"
[ -d "$store" ] || "$loom" --log-level warn generate sbm --nodes "$nodes" --avg-degree 25 --feat-dim 100 --classes 47 \
  --seed 1 -o "$store"

LOOM_BENCH_STORE=$store LOOM_BENCH_RMAT_SCALE=0 LOOM_BENCH_STEP=0 LOOM_BENCH_WORKERS=${WORKERS:-1,2} \
  "$bench_sampler" > "$work/loom.md"
peer=1
[[ -d $pyg ]] || { echo "$bench: pyg-lib skipped: no $pyg (set LOOM_PYG)" >&2; peer=0; }
if ((peer)); then
  PYTHONPATH=$pyg "$python" -W ignore bench/peers/pyg_sampler.py "$store" --threads 1,2 > "$work/pyg.md" || peer=0
fi

{
  echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores."
  echo
  cat "$work/loom.md"
  if ((peer)); then
    echo
    echo "## pyg-lib on the same store (torch.ops.pyg.neighbor_sample, as NeighborLoader calls it)"
    echo
    echo "| sampler | nodes | edges (directed) | threads | batches | ms/batch wall (cpu) | M sampled edges/s (wall) |"
    echo "|---|---|---|---|---|---|---|"
    cat "$work/pyg.md"
    echo
    echo "| threads | Loom ms/batch | pyg-lib ms/batch | pyg-lib / Loom |"
    echo "|---|---|---|---|"
    # Column 6 of both tables is "ms (cpu)"; rows are matched on the thread count (column 4).
    awk -F'|' 'FNR == NR && $2 ~ /sbm/ && $4 ~ /^ *[0-9]+ *$/ && NF == 9 { loom[$5 + 0] = $7 + 0 }
               FNR != NR && $2 ~ /pyg-lib/ { t = $5 + 0; if (t in loom)
                 printf "| %d | %.2f | %.2f | %.2fx |\n", t, loom[t], $7 + 0, ($7 + 0) / loom[t] }' \
      "$work/loom.md" "$work/pyg.md"
  fi
} | tee "$out"
echo "$bench: $out"
