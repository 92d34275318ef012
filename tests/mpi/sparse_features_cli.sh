#!/usr/bin/env bash
# The sparse feature layout under mpirun: MPIRUN NP LOOM. A graph with binary bag-of-words rows
# imported dense and sparse, each partitioned NP ways: `loom train` (pipeline, VIP cache; and
# Rudder's prefetch buffer with lookahead admission) and
# `loom fullgraph` give the same losses on both (within 1e-4 relative: the sparse first layer sums
# its products in another order than the dense one), and
# the remote rows of the sparse store cross the features channel as their entries: at most a
# twentieth of the dense rows' bytes (7 of 300 columns nonzero: 32 bytes a row against 1200).
set -euo pipefail
mpirun="$1" np="$2" loom="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=("$mpirun" -np "$np" --oversubscribe --allow-run-as-root --bind-to none -q "$loom" --log-level warn)
/usr/bin/python3 - "$dir/arrays" << 'PY'
import os, sys
import numpy as np
out = sys.argv[1]
os.makedirs(out)
n, dim = 800, 300
rng = np.random.default_rng(4)
src = np.repeat(np.arange(n), 4)
dst = (src + rng.integers(1, n, size=src.size)) % n
label = rng.integers(0, 5, size=n)
feat = np.zeros((n, dim), dtype=np.float32)
for v in range(n):  # a few words of the class's vocabulary and a few of any
    feat[v, rng.choice(np.arange(label[v] * 20, label[v] * 20 + 20), 3, replace=False)] = 1
    feat[v, rng.choice(np.arange(100, dim), 4, replace=False)] = 1
order = rng.permutation(n)
for name, arr in [("src", src), ("dst", dst), ("label", label), ("feat", feat), ("train_idx", order[:400]),
                  ("valid_idx", order[400:600]), ("test_idx", order[600:])]:
    np.save(os.path.join(out, name + ".npy"), arr)
PY
for layout in dense sparse; do
  "$loom" --log-level warn import npy "$dir/arrays" -o "$dir/$layout" --feature-layout "$layout" > /dev/null
  "$loom" --log-level warn partition "$dir/$layout" -k "$np" --method metis -o "$dir/$layout-parts" > /dev/null
  "${run[@]}" train "$dir/$layout-parts" --layers 2 --fanouts 10,5 --batch-size 64 --hidden 16 --epochs 2 --threads 1 \
    --pipeline-depth 2 --cache vip --alpha 0.2 --eval-every 0 --quiet --metrics "$dir/train-$layout.jsonl"
  "${run[@]}" train "$dir/$layout-parts" --layers 2 --fanouts 10,5 --batch-size 64 --hidden 16 --epochs 2 --threads 1 \
    --pipeline-depth 2 --controller lookahead --eval-every 0 --quiet --metrics "$dir/prefetch-$layout.jsonl"
  # No dropout here: dropout on sparse rows draws a mask for the stored values only (the same
  # distribution as on the dense rows, not the same draws).
  "${run[@]}" fullgraph "$dir/$layout-parts" --mode graph --model gcnii --layers 4 --hidden 16 --epochs 3 --threads 1 \
    --dropout 0 --eval-every 0 --quiet --metrics "$dir/full-$layout.jsonl"
done
grep -q '"feat_layout": "sparse"' "$dir/sparse-parts/part-0/meta.json" || { echo "part 0 is not sparse" >&2; exit 1; }
losses() { python3 -c "import json,sys; print([json.loads(l)['loss'] for l in open(sys.argv[1]) if '\"loss\"' in l])" "$1"; }
for kind in train prefetch full; do
  python3 - "$dir/$kind-dense.jsonl" "$dir/$kind-sparse.jsonl" "$kind" << 'PY' || exit 1
import json, sys
dense, sparse = ([json.loads(l)["loss"] for l in open(f) if '"loss"' in l] for f in sys.argv[1:3])
if len(dense) != len(sparse) or not dense or any(abs(a - b) > 1e-4 * abs(a) for a, b in zip(dense, sparse)):
    sys.exit(f"{sys.argv[3]}: sparse losses {sparse}, dense {dense}")
PY
done
bytes() { python3 -c "import json,sys; print(sum(json.loads(l)['feature_bytes'] for l in open(sys.argv[1]) if '\"loss\"' in l))" "$1"; }
dense_bytes=$(bytes "$dir/train-dense.jsonl") sparse_bytes=$(bytes "$dir/train-sparse.jsonl")
(( dense_bytes > 0 && sparse_bytes * 20 <= dense_bytes )) ||
  { echo "remote feature bytes: sparse $sparse_bytes, dense $dense_bytes (want at most 1/20)" >&2; exit 1; }
echo "remote feature bytes: sparse $sparse_bytes, dense $dense_bytes"
# One cache budget in bytes holds on both layouts: the sparse store's cache keeps more rows in it.
for layout in dense sparse; do
  "${run[@]}" train "$dir/$layout-parts" --layers 2 --fanouts 10,5 --batch-size 64 --hidden 16 --epochs 1 --threads 1 \
    --cache vip --cache-memory 24K --eval-every 0 --quiet --metrics "$dir/budget-$layout.jsonl"
done
python3 - "$dir/budget-dense.jsonl" "$dir/budget-sparse.jsonl" "$np" << 'PY' || exit 1
import json, sys
dense, sparse = (next(json.loads(l) for l in open(f) if '"event":"cache"' in l.replace(" ", "")) for f in sys.argv[1:3])
budget = 24 * 1024 * int(sys.argv[3])
for name, record in (("dense", dense), ("sparse", sparse)):
    if not 0 < record["bytes"] <= budget:
        sys.exit(f"--cache-memory: the {name} cache holds {record['bytes']} bytes for a budget of {budget}")
if sparse["rows"] <= 4 * dense["rows"]:
    sys.exit(f"--cache-memory: the sparse cache holds {sparse['rows']} rows, the dense one {dense['rows']}")
PY
# The cache analysis counts the same rows on both layouts and their bytes as they travel.
for layout in dense sparse; do
  "$loom" --log-level warn analyze cache "$dir/$layout-parts" --fanouts 10,5 --batch-size 64 --epochs 1 \
    --json "$dir/analysis-$layout.json" > /dev/null
done
python3 - "$dir/analysis-dense.json" "$dir/analysis-sparse.json" << 'PY' || exit 1
import json, sys
dense, sparse = (json.load(open(f)) for f in sys.argv[1:3])
if dense["remote_rows_per_epoch_no_cache"] != sparse["remote_rows_per_epoch_no_cache"]:
    sys.exit("analyze cache: the layouts count different remote rows")
if not 0 < sparse["remote_bytes_per_epoch_no_cache"] * 20 <= dense["remote_bytes_per_epoch_no_cache"]:
    sys.exit(f"analyze cache: remote bytes sparse {sparse['remote_bytes_per_epoch_no_cache']}, "
             f"dense {dense['remote_bytes_per_epoch_no_cache']} (want at most 1/20)")
PY
echo "sparse and dense stores train to the same losses on $np ranks: $(losses "$dir/train-sparse.jsonl")"
