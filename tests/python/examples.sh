#!/usr/bin/env bash
# ctest's python.examples: every script of examples/python on small generated data, as a user runs
# them: the custom GraphSAGE on one process and under `mpirun -np 4` on METIS parts with a VIP
# cache and lookahead prefetch (its metrics drawn by loom.report), the GCN and GAT recipes, and
# node2vec with node classification and link prediction; and the PyG-idiom scripts where PyG is.
# usage: examples.sh MPIRUN LOOM PYTHON   (PYTHONPATH must reach the built package)
set -euo pipefail
mpirun=$1 loom=$2 python=$3
examples=$(cd "$(dirname "$0")/../../examples/python" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$loom" --log-level warn generate sbm -o "$dir/sbm" --nodes 1200 --classes 4 --avg-degree 12 --feat-dim 16 --seed 3
"$loom" --log-level warn partition "$dir/sbm" -k 4 --method metis -o "$dir/parts" > /dev/null
expect() {  # expect FILE PATTERN: the example printed PATTERN
  grep -q -- "$2" "$1" || { echo "expected '$2' in the output:" >&2; cat "$1" >&2; exit 1; }
}

"$python" "$examples/sage_custom_model.py" "$dir/sbm" --epochs 2 --fanouts 10,5 --hidden 32 --batch-size 64 \
  --threads 1 > "$dir/one.out"
expect "$dir/one.out" "^epoch 2: .* remote rows 0 "
expect "$dir/one.out" "exact inference: valid accuracy 0\.[0-9]* | test accuracy 0\.[0-9]*"

"$mpirun" -np 4 --oversubscribe --allow-run-as-root --bind-to none -x PYTHONPATH \
  "$python" "$examples/sage_custom_model.py" "$dir/parts" --epochs 2 --fanouts 10,5 --hidden 32 --batch-size 64 \
  --cache vip --alpha 0.2 --controller lookahead --lookahead 2 --threads 1 --metrics "$dir/four.jsonl" > "$dir/four.out"
expect "$dir/four.out" "^epoch 2: "
[[ $(grep -c "^epoch 2: " "$dir/four.out") == 1 ]] || { echo "rank 0 alone should print" >&2; exit 1; }
"$python" - "$dir/four.jsonl" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
epoch = records[0]
assert epoch["rows_remote"] > 0 and epoch["rows_cached"] > 0, epoch
assert epoch["comm"]["sum"]["features"]["bytes_received"] > 0, epoch["comm"]
assert records[-1]["event"] == "exact_eval" and 0 < records[-1]["test_accuracy"] <= 1, records[-1]
assert records[0]["phases_seconds"]["compute"] > 0, records[0]
PY
"$python" -m loom.report "$dir/four.jsonl" -o "$dir/report.html" > /dev/null
[[ -s "$dir/report.html" ]] || { echo "no report" >&2; exit 1; }

for model in gcn gat; do
  "$python" "$examples/planetoid_recipe.py" "$dir/sbm" --model $model --epochs 20 --threads 1 > "$dir/$model.out"
  expect "$dir/$model.out" "^$model on .*: test accuracy 0\.[0-9]* at epoch"
done

"$python" "$examples/node2vec_nodeclass.py" "$dir/sbm" --p 0.5 --q 2 --walks 4 --length 20 --dim 16 --threads 1 \
  --ratios 0.5 --linkpred > "$dir/n2v.out" 2> /dev/null
expect "$dir/n2v.out" "train ratio 50%: macro-F1 0\.[0-9]*"
expect "$dir/n2v.out" "link prediction, hadamard: ROC-AUC"
# PyG's idiom: the NeighborLoader script, its port to loom.Loader and the port's mpirun version,
# where PyG is (LOOM_PYG, default ../shared/peers/pyg); the ports change at most 5 and 10 lines.
pyg=${LOOM_PYG:-$examples/../../../shared/peers/pyg}
if [ -d "$pyg/torch_geometric" ]; then
  export PYTHONPATH=$PYTHONPATH:$(cd "$pyg" && pwd)
  for script in pyg_sage_neighbor_loader pyg_sage_loom; do
    "$python" "$examples/$script.py" "$dir/sbm" --epochs 2 > "$dir/$script.out"
    expect "$dir/$script.out" "final test accuracy 0\.[0-9]*"
  done
  "$mpirun" -np 4 --oversubscribe --allow-run-as-root --bind-to none -x PYTHONPATH \
    "$python" "$examples/pyg_sage_loom_mpi.py" "$dir/parts" --epochs 2 > "$dir/pyg_mpi.out"
  expect "$dir/pyg_mpi.out" "final test accuracy 0\.[0-9]*"
  "$python" - "$examples" <<'PY'
import difflib, sys
def changed(a, b):
    a, b = (open(f"{sys.argv[1]}/{n}.py").read().splitlines() for n in (a, b))
    return sum(max(i2 - i1, j2 - j1) for t, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
               if t != "equal")
port, mpi = changed("pyg_sage_neighbor_loader", "pyg_sage_loom"), changed("pyg_sage_loom", "pyg_sage_loom_mpi")
assert port <= 5 and mpi <= 10, (port, mpi)
PY
else
  echo "skip: the PyG examples (no PyG at $pyg; set LOOM_PYG)"
fi
echo ok
