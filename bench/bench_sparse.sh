#!/usr/bin/env bash
# Sparse feature layout against the dense one (issue 60), same sitting, same seeds: Cora and PubMed
# (LOOM_DATA) and a generated SBM graph with binary bag-of-words rows (SPARSE_NODES nodes, default
# 20000; SPARSE_DIM columns, default 5000; SPARSE_WORDS words a row, default 15). For each graph and
# layout: the store's feature bytes, a 3-layer SAGE run in one process on 2 threads (epoch time:
# median after the first; test accuracy of exact inference; 3 seeds on the real graphs), and the
# remote feature bytes an epoch on 4 METIS parts (4 ranks). Writes bench/results/sparse.md.
# Env: LOOM, LOOM_DATA, LOOM_PYTHON (bench/lib.sh); EPOCHS (default 5).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=bench/work/sparse
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
require_loom || exit 1
mkdir -p "$work" bench/results
epochs=${EPOCHS:-5}
nodes=${SPARSE_NODES:-20000} dim=${SPARSE_DIM:-5000} words=${SPARSE_WORDS:-15}
mpirun=(mpirun -np 4 --oversubscribe --bind-to none -q)
train=(--model sage --layers 3 --hidden 256 --fanouts 15,10,5 --batch-size 1024 --lr 0.003 --quiet)

feature_bytes() { du -cb "$1"/feat*.npy | tail -1 | cut -f1; }
# summary FILE: median epoch seconds after the first, exact test accuracy, the last epoch's remote feature bytes
summary() {
  "$python" - "$1" << 'PY'
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ep = [r for r in recs if "loss" in r]
seconds = statistics.median(r["epoch_seconds"] for r in (ep[1:] or ep))
acc = next((r.get("test_accuracy") for r in recs if r.get("event") == "exact_eval"), float("nan"))
print(f"{seconds:.3f} {acc:.4f} {ep[-1].get('feature_bytes', 0)} {ep[-1]['loss']:.6f}")
PY
}

rows=()
run_graph() {  # NAME SOURCE-STORE-MAKER...: NAME's dense and sparse stores exist in $work
  local name=$1 seeds=$2
  for layout in dense sparse; do
    local store="$work/$name-$layout"
    [ -d "$store-4" ] || "$loom" --log-level warn partition "$store" -k 4 --method metis -o "$store-4" > /dev/null
  done
  local row="| $name"
  for layout in dense sparse; do
    row+=" | $(feature_bytes "$work/$name-$layout")"
  done
  for seed in $(seq 1 "$seeds"); do
    for layout in dense sparse; do
      "$loom" --log-level warn train "$work/$name-$layout" "${train[@]}" --epochs "$epochs" --threads 2 --seed "$seed" \
        --metrics "$work/$name-$layout-$seed.jsonl" --overwrite
    done
  done
  for layout in dense sparse; do
    "${mpirun[@]}" "$loom" --log-level warn train "$work/$name-$layout-4" "${train[@]}" --threads 1 --epochs 1 \
      --metrics "$work/$name-$layout-4.jsonl" --overwrite
  done
  local d s ds ss
  read -r ds _ _ _ <<< "$(summary "$work/$name-dense-1.jsonl")"
  read -r ss _ _ _ <<< "$(summary "$work/$name-sparse-1.jsonl")"
  local accs=""
  for layout in dense sparse; do
    local a=()
    for seed in $(seq 1 "$seeds"); do a+=("$(summary "$work/$name-$layout-$seed.jsonl" | cut -d' ' -f2)"); done
    accs+=" | ${a[*]}"
  done
  read -r _ _ d _ <<< "$(summary "$work/$name-dense-4.jsonl")"
  read -r _ _ s _ <<< "$(summary "$work/$name-sparse-4.jsonl")"
  row+=" | $ds | $ss | $("$python" -c "print(f'{$ds / $ss:.2f}')")$accs | $d | $s | $("$python" -c "print(f'{$d / max(1, $s):.1f}')") |"
  rows+=("$row")
}

for name in cora pubmed; do
  if require_data "$data/graphs/$name"; then
    for layout in dense sparse; do
      [ -d "$work/$name-$layout" ] ||
        "$loom" --log-level warn import ogb "$data/graphs/$name" -o "$work/$name-$layout" --feature-layout "$layout"
    done
    run_graph "$name" 3
  fi
done
gen="sbm-${nodes}-${dim}-${words}"
[ -d "$work/$gen-sparse" ] || "$loom" --log-level warn generate sbm --nodes "$nodes" --classes 20 --avg-degree 15 \
  --feat-dim "$dim" --words "$words" --seed 1 -o "$work/$gen-sparse" > /dev/null
[ -d "$work/$gen-dense" ] || "$loom" --log-level warn generate sbm --nodes "$nodes" --classes 20 --avg-degree 15 \
  --feat-dim "$dim" --words "$words" --words-layout dense --seed 1 -o "$work/$gen-dense" > /dev/null
run_graph "$gen" 1

{
  echo "# Sparse feature layout against dense (bench/bench_sparse.sh)"
  echo
  echo "3-layer SAGE (hidden 256, fanouts 15,10,5, batch 1024), $epochs epochs in one process on 2 threads; epoch time the median after the first; test accuracy of exact inference, one value per seed; remote feature bytes of one epoch on 4 METIS parts (4 ranks). Feature bytes: the store's feature files."
  echo
  echo "| graph | feature bytes dense | sparse | s/epoch dense | sparse | dense/sparse | test acc dense (seeds) | sparse (seeds) | remote bytes dense | sparse | dense/sparse |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} > bench/results/sparse.md
cat bench/results/sparse.md
