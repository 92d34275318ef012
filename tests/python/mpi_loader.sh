#!/usr/bin/env bash
# ctest's python.mpi.np2: the same epoch through `loom train` and through the Python loader, each
# on 2 ranks of a 2-way partitioned store (mpi_loader_check.py compares them).
# usage: mpi_loader.sh MPIRUN LOOM PYTHON
set -euo pipefail
mpirun=$1 loom=$2 python=$3
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=("$mpirun" -np 2 --oversubscribe --allow-run-as-root --bind-to none --mca btl self,vader)
"$loom" --log-level warn generate sbm -o "$dir/sbm" --nodes 1200 --classes 4 --avg-degree 12 --feat-dim 16 --seed 3
"$loom" --log-level warn partition "$dir/sbm" -k 2 -o "$dir/parts"
"${run[@]}" "$loom" --log-level warn train "$dir/parts" --layers 2 --fanouts 10,5 --batch-size 64 --epochs 1 --seed 7 \
  --threads 1 --eval-every 0 --no-exact-eval --metrics "$dir/train.jsonl"
LOOM_TEST_PARTS="$dir/parts" LOOM_TEST_METRICS="$dir/train.jsonl" \
  "${run[@]}" -x LOOM_TEST_PARTS -x LOOM_TEST_METRICS -x PYTHONPATH \
  "$python" -m pytest -q -p no:cacheprovider "$here/mpi_loader_check.py"
