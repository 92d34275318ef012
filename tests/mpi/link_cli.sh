#!/usr/bin/env bash
# `loom train --task link` under mpirun: MPIRUN NP LOOM. A store and its NP-way partition hold out
# the same edges (the split hashes the source store's rows), both learn (validation AUC well above
# chance, the MLP decoder and degree negatives too), the partition moves feature rows between ranks
# and counts them, and node-task options are refused by name.
set -euo pipefail
mpirun="$1" np="$2" loom="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=("$mpirun" -np "$np" --oversubscribe --allow-run-as-root --bind-to none -q "$loom" --log-level warn)
"$loom" --log-level warn generate sbm --nodes 800 --classes 4 --avg-degree 10 --feat-dim 16 --seed 3 -o "$dir/g" > /dev/null
"$loom" --log-level warn partition "$dir/g" -k "$np" -o "$dir/parts" > /dev/null

link=(--task link --layers 2 --fanouts 10,5 --hidden 32 --batch-size 128 --epochs 3 --lr 0.01 --threads 1 --quiet)
"$loom" --log-level warn train "$dir/g" "${link[@]}" --metrics "$dir/one.jsonl"
"${run[@]}" train "$dir/parts" "${link[@]}" --cache vip --alpha 0.2 --metrics "$dir/many.jsonl"
"${run[@]}" train "$dir/parts" "${link[@]}" --decoder mlp --negatives degree --drop-target-edges \
  --metrics "$dir/mlp.jsonl"
python3 - "$dir" <<'PY'
import json, sys
def records(name):
    return [json.loads(line) for line in open(f"{sys.argv[1]}/{name}.jsonl")]
split = lambda rs: {k: v for r in rs if r.get("event") == "link_split" for k, v in r.items() if k.endswith(("edges", "pairs"))}
one, many, mlp = records("one"), records("many"), records("mlp")
assert split(one) == split(many) == split(mlp), (split(one), split(many))
assert split(one)["valid_pairs"] > 0 and split(one)["test_pairs"] > 0
for name, rs in (("one", one), ("many", many), ("mlp", mlp)):
    last = [r for r in rs if "valid_auc" in r][-1]
    assert last["valid_auc"] > 0.65 and last["test_auc"] > 0.65, (name, last)
    assert 0 <= last["test_hits@50"] <= 1 and 0 < last["test_mrr"] <= 1, (name, last)
epoch = [r for r in many if "valid_auc" in r][-1]
assert epoch["rows_remote"] > 0 and epoch["comm"]["sum"]["features"]["bytes_received"] > 0, epoch
PY

refused() {  # refused WHAT ARGS...: the run fails and names WHAT
  if "$loom" --log-level warn train "$dir/g" --task link "${@:2}" > "$dir/err" 2>&1; then
    echo "--task link ${*:2} should fail" >&2; exit 1
  fi
  grep -q -- "$1" "$dir/err" || { echo "expected '$1' in:" >&2; cat "$dir/err" >&2; exit 1; }
}
refused "--checkpoint-dir" --checkpoint-dir "$dir/ck"
refused "--link-valid" --link-valid 0.6 --link-test 0.5
refused "--selection" --selection best-valid
refused "--hits-at" --hits-at 0
