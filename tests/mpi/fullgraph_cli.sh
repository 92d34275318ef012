#!/usr/bin/env bash
# Multi-rank `loom fullgraph` end to end: MPIRUN NP LOOM. On one METIS partition with NP parts,
# graph, pipe and (even NP) hybrid modes train a 6-layer GCNII from the CLI, write metrics with
# the bytes per channel, and reach the accuracy of graph parallelism; bad layouts exit non-zero
# with one clear message.
set -euo pipefail
mpirun="$1" np="$2" loom="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=("$mpirun" -np "$np" --oversubscribe --allow-run-as-root --bind-to none -q "$loom" --log-level warn)
"$loom" --log-level warn generate sbm --nodes 800 --classes 4 --avg-degree 10 --homophily 0.85 --feat-dim 16 \
  --feat-noise 0.8 --train 0.3 --valid 0.2 --seed 3 -o "$dir/g" > /dev/null
"$loom" --log-level warn partition "$dir/g" -k "$np" --method metis -o "$dir/parts" > /dev/null
common=(--model gcnii --layers 6 --hidden 16 --dropout 0.2 --lr 0.02 --epochs 60 --eval-every 20 --threads 1 --quiet)
modes=(graph pipe)
(( np % 2 == 0 )) && modes+=(hybrid)
for mode in "${modes[@]}"; do
  "${run[@]}" fullgraph "$dir/parts" --mode "$mode" --ways 2 "${common[@]}" --metrics "$dir/$mode.jsonl"
done
python3 - "$dir" "${modes[@]}" <<'PY'
import json, sys
d, modes = sys.argv[1], sys.argv[2:]
acc = {}
for mode in modes:
    recs = [json.loads(l) for l in open(f"{d}/{mode}.jsonl")]
    setup, last = recs[0], [r for r in recs if "epoch" in r and "event" not in r][-1]
    assert setup["event"] == "setup" and setup["mode"] == mode, setup
    assert last["epoch"] == 60, last
    b = last["bytes"]
    print(mode, "test", last["test_accuracy"], "bytes", b)
    if mode == "graph":
        assert b["halo"] > 0 and b["activations"] == 0, b
    else:
        assert b["activations"] == b["gradients"] == setup["formula_pipe_bytes"] / 2, (b, setup)
    acc[mode] = last["test_accuracy"]
for mode in modes:
    assert acc[mode] > acc["graph"] - 0.05, acc
PY
if "${run[@]}" fullgraph "$dir/parts" --mode pipe --layers 1 --epochs 1 2> "$dir/err"; then
  echo "pipe with fewer layers than stages should fail" >&2; exit 1
fi
grep -q "need a layer per stage" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
[[ $(grep -c "error" "$dir/err") == 1 ]] || { echo "expected one error line:" >&2; cat "$dir/err" >&2; exit 1; }
if "${run[@]}" fullgraph "$dir/parts" --mode pipe --cross-grad late --epochs 1 2> "$dir/err"; then
  echo "an unknown --cross-grad should fail" >&2; exit 1
fi
grep -q -- "--cross-grad: unknown value 'late'" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
[[ $(grep -c "unknown value" "$dir/err") == 1 ]] || { echo "expected the usage error once:" >&2; cat "$dir/err" >&2; exit 1; }
if "${run[@]}" fullgraph "$dir/g" --epochs 1 2> "$dir/err"; then
  echo "an unpartitioned store should fail" >&2; exit 1
fi
grep -q "partitioned store" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
# --device cuda trains where LibTorch has CUDA and a GPU; anywhere else every rank stops with one error
if ! "${run[@]}" fullgraph "$dir/parts" --device cuda --layers 4 --hidden 8 --epochs 1 2> "$dir/err" > /dev/null; then
  grep -q "argument --device" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
  [[ $(grep -c "error" "$dir/err") == 1 ]] || { echo "expected one error line:" >&2; cat "$dir/err" >&2; exit 1; }
fi
echo ok
