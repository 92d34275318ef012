#!/usr/bin/env bash
# Accuracy of the published recipes (issue 21). Every recipe of configs/ for the Planetoid graphs
# (GCN, GAT, GraphSAGE) on every graph of $LOOM_DATA/graphs with a split/planetoid folder (Cora,
# PubMed, and any graph dropped there in the same layout), SEEDS seeds each:
#   loom          loom train --config RECIPE (full neighbourhoods, one full-batch step per epoch)
#   loom-sampled  the same recipe trained mini-batch: --fanouts 25,10 --batch-size 64
#   pyg           PyG 2.4 (../shared/peers/pyg) on the same store and recipe (bench/peers/pyg_recipe.py)
# plus GraphSAGE on Facebook (configs/sage-facebook.toml) and on Cora with the quick settings of
# tests/train/real_data_accuracy_test.cpp, which must not get worse. Test accuracy is taken at the
# selected epoch (the recipes select by validation). Writes one JSON line per run under
# bench/work/accuracy/runs and bench/results/accuracy.md (bench/accuracy_report.py).
# A rerun skips the runs already recorded (delete bench/work/accuracy/runs to start over).
# Env: SEEDS (10), PYG_SEEDS (seeds of the PyG runs, default SEEDS), THREADS (2), LOOM_DATA,
# PYG (../shared/peers/pyg), LOOM (the binary, build/loom), LOOM_PYTHON (bench/lib.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
pyg=${PYG:-../shared/peers/pyg}
seeds=${SEEDS:-10}
pyg_seeds=${PYG_SEEDS:-$seeds}
threads=${THREADS:-2}
work=bench/work/accuracy
runs=$work/runs
require_loom || exit 1
mkdir -p "$runs" bench/results

graphs=()
for dir in "$data"/graphs/*/; do
  [ -d "$dir/split/planetoid" ] || continue
  name=$(basename "$dir")
  [ -d "$work/$name" ] || "$loom" --log-level warn import ogb "$dir" -o "$work/$name" --split planetoid
  graphs+=("$name")
done
[ ${#graphs[@]} -gt 0 ] || { echo "bench_accuracy: no graph with split/planetoid under $data/graphs"; exit 1; }

# The paper's recipe of MODEL for GRAPH (GAT's paper changes its recipe for PubMed only).
recipe() {
  case $1 in
    gcn) echo configs/gcn-planetoid.toml ;;
    sage) echo configs/sage-planetoid.toml ;;
    gat) if [ "$2" = pubmed ]; then echo configs/gat-pubmed.toml; else echo configs/gat-cora.toml; fi ;;
  esac
}

done_runs() { [ -f "$1" ] && wc -l < "$1" || echo 0; }

# loom_runs OUT STORE ARGS...: one JSON line per seed from the run's exact evaluation record.
loom_runs() {
  local out=$1 store=$2
  shift 2
  local first
  first=$(done_runs "$out")
  for ((s = first; s < seeds; s++)); do
    rm -f "$work/metrics.jsonl"
    local start end
    start=$(date +%s.%N)
    "$loom" --log-level warn train "$store" --seed "$s" --threads "$threads" --quiet \
      --overwrite --metrics "$work/metrics.jsonl" "$@"
    end=$(date +%s.%N)
    "$python" - "$work/metrics.jsonl" "$s" "$start" "$end" >> "$out" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
final = [x for x in r if x.get("event") == "exact_eval"][-1]
epochs = [x for x in r if "epoch_seconds" in x]
seconds = float(sys.argv[4]) - float(sys.argv[3])
print(json.dumps({"seed": int(sys.argv[2]), "test_accuracy": final["test_accuracy"],
                  "valid_accuracy": final["valid_accuracy"], "best_epoch": final["weights_of_epoch"],
                  "epochs_run": len(epochs), "seconds": seconds, "epoch_seconds": seconds / max(1, len(epochs))}))
PY
  done
}

have_pyg=0
if require_python_modules torch numpy && [ -d "$pyg" ] &&
   PYTHONPATH=$pyg "$python" -c "import torch_geometric" 2>/dev/null; then
  have_pyg=1
else
  echo "bench_accuracy: PyG peer not found at $pyg (or python3-torch missing): skipping the pyg runs"
fi

for g in "${graphs[@]}"; do
  for model in gcn gat sage; do
    cfg=$(recipe $model "$g")
    echo "== $g $model ($cfg)"
    loom_runs "$runs/$g.$model.loom.jsonl" "$work/$g" --config "$cfg"
    loom_runs "$runs/$g.$model.loom-sampled.jsonl" "$work/$g" --config "$cfg" --fanouts 25,10 --batch-size 64
    out="$runs/$g.$model.pyg.jsonl"
    first=$(done_runs "$out")
    if [ $have_pyg = 1 ] && [ "$first" -lt "$pyg_seeds" ]; then
      PYTHONPATH=$pyg "$python" -W ignore bench/peers/pyg_recipe.py "$work/$g" "$cfg" \
        --seeds "$(seq -s, "$first" $((pyg_seeds - 1)))" --threads "$threads" >> "$out"
    fi
  done
done

# The settings that must not get worse: GraphSAGE on Facebook (SALIENT's recipe) and on Cora with
# the quick settings of the accuracy test.
if [ -d "$data/graphs/facebook" ]; then
  [ -d "$work/facebook" ] || "$loom" --log-level warn import ogb "$data/graphs/facebook" -o "$work/facebook"
  seeds=$((seeds < 3 ? seeds : 3)) loom_runs "$runs/facebook.sage-facebook.loom.jsonl" "$work/facebook" \
    --config configs/sage-facebook.toml
fi
if [ -d "$work/cora" ]; then
  seeds=$((seeds < 5 ? seeds : 5)) loom_runs "$runs/cora.sage-quick.loom.jsonl" "$work/cora" --model sage --layers 2 \
    --hidden 64 --dropout 0.5 --fanouts 25,10 --batch-size 140 --epochs 40 --lr 0.01 --weight-decay 5e-4 --eval-every 0
fi

"$python" bench/accuracy_report.py "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)" > bench/results/accuracy.md
cat bench/results/accuracy.md
